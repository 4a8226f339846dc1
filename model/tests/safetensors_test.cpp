// The safetensors header parser on valid and corrupt inputs: every corruption
// must give a ModelError that names the file and the reason.
#include <gtest/gtest.h>

#include <cstring>

#include "qgpu/model/error.h"
#include "qgpu/model/safetensors.h"

namespace qgpu::model {
namespace {

std::vector<std::byte> fileWith(const std::string& header, std::size_t dataBytes) {
    std::vector<std::byte> f(8 + header.size() + dataBytes);
    const std::uint64_t len = header.size();
    for (int i = 0; i < 8; ++i) f[i] = static_cast<std::byte>((len >> (8 * i)) & 0xff);
    std::memcpy(f.data() + 8, header.data(), header.size());
    return f;
}

// Expects a ModelError whose message mentions `origin` and `needle`.
void expectError(const std::vector<std::byte>& file, const std::string& needle) {
    try {
        parseSafetensors(file, "x.safetensors");
        ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
    } catch (const ModelError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("x.safetensors"), std::string::npos) << msg;
        EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    }
}

TEST(Safetensors, ParsesTensorsAndSkipsMetadata) {
    const auto f = fileWith(
        R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
        R"("b":{"dtype":"BF16","shape":[4],"data_offsets":[24,32]},"c":{"dtype":"I64","shape":[1],"data_offsets":[32,40]}})",
        40);
    const auto h = parseSafetensors(f, "x.safetensors");
    ASSERT_EQ(h.tensors.size(), 3u);
    const auto& a = h.tensors.at("a");
    EXPECT_EQ(a.dtype, DType::F32);
    EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(a.begin, h.dataStart);
    EXPECT_EQ(h.tensors.at("b").end, h.dataStart + 32);
    EXPECT_FALSE(h.tensors.at("c").dtype.has_value());  // kept, flagged unsupported
    EXPECT_EQ(h.tensors.at("c").dtypeName, "I64");
}

TEST(Safetensors, RejectsFileShorterThanLengthPrefix) { expectError(std::vector<std::byte>(5), "shorter than the 8-byte"); }

TEST(Safetensors, RejectsHeaderLengthPastEndOfFile) {
    auto f = fileWith("{}", 0);
    f[0] = static_cast<std::byte>(200);
    expectError(f, "runs past the end of the file");
}

TEST(Safetensors, RejectsHugeHeaderLength) {
    auto f = fileWith("{}", 0);
    f[7] = static_cast<std::byte>(1);
    expectError(f, "exceeds the 100 MB limit");
}

TEST(Safetensors, RejectsInvalidJson) { expectError(fileWith("{\"a\": [", 0), "not valid JSON"); }

TEST(Safetensors, RejectsNonObjectHeader) { expectError(fileWith("[1,2]", 0), "not a JSON object"); }

TEST(Safetensors, RejectsEntryWithoutDtype) {
    expectError(fileWith(R"({"a":{"shape":[1],"data_offsets":[0,4]}})", 4), "tensor 'a': missing string 'dtype'");
}

TEST(Safetensors, RejectsOffsetsOutsideTheFile) {
    expectError(fileWith(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8), "points outside the file");
}

TEST(Safetensors, RejectsTruncatedData) {
    auto f = fileWith(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 16);
    f.resize(f.size() - 1);
    expectError(f, "file truncated?");
}

TEST(Safetensors, RejectsReversedOffsets) {
    expectError(fileWith(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,4]}})", 8), "begin 8 > end 4");
}

TEST(Safetensors, RejectsLengthNotMatchingShape) {
    expectError(fileWith(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8), "does not match shape [3]");
}

TEST(Safetensors, RejectsNegativeOrHugeShapes) {
    expectError(fileWith(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})", 0), "non-negative integers");
    expectError(fileWith(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", 0),
                "shape is too large");
}

TEST(Safetensors, RejectsNonIntegerOffsets) {
    expectError(fileWith(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,"4"]}})", 4), "non-negative integers");
    expectError(fileWith(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", 4), "array of two integers");
}

}  // namespace
}  // namespace qgpu::model
