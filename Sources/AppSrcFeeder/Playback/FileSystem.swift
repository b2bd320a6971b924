// yt-gst — the few file-system calls playlists and the CLI need, on Glibc (Foundation costs start-up time).
import Glibc

package enum FileSystem {
    /// The whole text of a small file (templates, playlists), or nil when it cannot be read.
    package static func readText(_ path: String, limit: Int = 4 << 20) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    package enum EntryKind { case file, directory, other, missing }

    package static func kind(of path: String) -> EntryKind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    /// Names in a directory (no "." or ".."), unsorted; [] when it cannot be read.
    package static func list(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    package static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// The running executable's path (/proc/self/exe), for finding the installed share directory beside it.
    package static var executablePath: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` joined to `base` unless it is absolute.
    package static func resolve(_ path: String, against base: String) -> String {
        path.hasPrefix("/") || base.isEmpty ? path : base + "/" + path
    }

    /// Everything before the last "/" ("." when there is none).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
