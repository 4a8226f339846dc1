// A whole file mapped read-only into memory, so checkpoint weights are paged in
// on demand instead of copied.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace qgpu::model {

class MappedFile {
public:
    explicit MappedFile(const std::string& path);  // throws ModelError naming the path
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    std::span<const std::byte> bytes() const { return {data_, size_}; }
    const std::string& path() const { return path_; }
    // Gives back the resident pages wholly inside `part` (a span of bytes()): a hint, not a
    // change of contents — the mapping is private and read-only, so a later read pages them
    // in again from the file. Used once a weight has been copied into another form.
    void releasePages(std::span<const std::byte> part) const;

private:
    std::string path_;
    const std::byte* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace qgpu::model
