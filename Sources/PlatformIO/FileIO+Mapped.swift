#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileIO {
    /// Runs `body` over the bytes of the regular file at `path`, mapped
    /// read-only into memory instead of copied: a reader that looks at a few
    /// pages of a large file (one key of a domain) touches only those.
    /// Anything that is not a regular file is refused without blocking; an
    /// empty file gives an empty buffer.
    ///
    /// The mapping is private and read-only. A file is seen as it was when
    /// opened only if writers replace it by renaming a new file over it (as
    /// every OpenDefaults writer does); a writer that truncates the file in
    /// place while it is mapped makes reading past the new end fault.
    ///
    /// ```swift
    /// let count = try FileIO.withMappedRegularFile("/home/ada/.config/com.example.app.plist") { $0.count }
    /// ```
    package static func withMappedRegularFile<R>(_ path: String, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let (fd, st) = try openRegularFile(path)
        defer { close(fd) }
        let size = Int(st.st_size)
        if size == 0 { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw FileError(path: path)
        }
        defer { munmap(base, size) }
        return try body(UnsafeRawBufferPointer(start: base, count: size))
    }
}
