// yt-gst — what to play: files, directories (recursively, WAVs, natural order) and m3u/m3u8/pls playlists.

/// The files a list of arguments names, as `play` expands them.
public enum Playlist {
    /// Extensions of files a directory walk picks up.
    public static let audioExtensions: Set<String> = ["wav", "wave", "bwf", "rf64", "w64"]

    /// Expands command-line arguments into the files to play, in order. Paths that do not exist stay in the list,
    /// so that playing them reports the error and the rest goes on. Problems with playlists come back as warnings.
    public static func expand(_ arguments: [String]) -> (files: [String], warnings: [String]) {
        var files: [String] = []
        var warnings: [String] = []
        for argument in arguments { add(argument, to: &files, warnings: &warnings, depth: 0) }
        return (files, warnings)
    }

    private static func add(_ path: String, to files: inout [String], warnings: inout [String], depth: Int) {
        guard depth < 8 else {
            warnings.append("\(path): playlists nested too deeply; skipped")
            return
        }
        switch FileSystem.kind(of: path) {
        case .directory:
            files += walk(path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path)
        case .file where isPlaylist(path):
            guard let text = FileSystem.readText(path) else {
                files.append(path)  // reported when played
                return
            }
            let base = FileSystem.directory(of: path)
            let entries = fileExtension(path) == "pls" ? parsePLS(text) : parseM3U(text)
            for entry in entries {
                if entry.contains("://") {
                    warnings.append("\(path): \(entry): only local files can be played; skipped")
                    continue
                }
                add(FileSystem.resolve(entry, against: base), to: &files, warnings: &warnings, depth: depth + 1)
            }
        default:
            files.append(path)
        }
    }

    public static func isPlaylist(_ path: String) -> Bool { ["m3u", "m3u8", "pls"].contains(fileExtension(path)) }

    public static func fileExtension(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// Every audio file under `directory`, in natural order of their paths.
    public static func walk(_ directory: String) -> [String] {
        var found: [String] = []
        var pending = [directory]
        var visited = 0
        while let current = pending.popLast(), visited < 100_000 {
            visited += 1
            for name in FileSystem.list(current) where !name.hasPrefix(".") {
                let path = current == "/" ? "/" + name : current + "/" + name
                switch FileSystem.kind(of: path) {
                case .directory: pending.append(path)
                case .file where audioExtensions.contains(fileExtension(name)): found.append(path)
                default: break
                }
            }
        }
        return found.sorted(by: NaturalOrder.less)
    }

    /// Entries of an m3u/m3u8 playlist: every line that is not blank or a comment (#EXTINF and friends).
    public static func parseM3U(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { String($0).trimmingWhitespace }
            .map { $0.hasPrefix("\u{FEFF}") ? String($0.dropFirst()) : $0 }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .map { $0.hasPrefix("file://") ? String($0.dropFirst(7)) : $0 }
    }

    /// Entries of a pls playlist: `FileN=path`, in the order of N.
    public static func parsePLS(_ text: String) -> [String] {
        var numbered: [(Int, String)] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let trimmed = String(line).trimmingWhitespace
            guard trimmed.lowercased().hasPrefix("file"), let equals = trimmed.firstIndex(of: "=") else { continue }
            guard let number = Int(trimmed[trimmed.index(trimmed.startIndex, offsetBy: 4)..<equals]) else { continue }
            let value = String(trimmed[trimmed.index(after: equals)...])
            numbered.append((number, value.hasPrefix("file://") ? String(value.dropFirst(7)) : value))
        }
        return numbered.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
