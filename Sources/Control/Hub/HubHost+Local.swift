// yt-gst — this machine as Snapcast's host object: its name, OS and architecture.
import AppSrcFeeder
import Glibc

extension HubHost {
    /// This machine (no address or MAC: the hub takes a room's address from its connection).
    public static var local: HubHost {
        HubHost(name: hostName, os: operatingSystem, arch: architecture)
    }

    /// gethostname(2); "localhost" if it fails.
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// /etc/os-release's PRETTY_NAME ("Debian GNU/Linux 12 (bookworm)"), else "Linux".
    static var operatingSystem: String {
        let lines = FileSystem.readText("/etc/os-release")?.split(separator: "\n") ?? []
        guard let line = lines.first(where: { $0.hasPrefix("PRETTY_NAME=") }) else { return "Linux" }
        return String(line.dropFirst("PRETTY_NAME=".count).filter { $0 != "\"" })
    }

    /// uname(2)'s machine ("x86_64").
    static var architecture: String {
        var names = utsname()
        guard uname(&names) == 0 else { return "" }
        return withUnsafeBytes(of: names.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// Random ids: a group's (Snapcast uses UUIDs) and a room's first id.
public enum RandomID {
    /// A random (version 4) UUID in its usual text form.
    public static func uuid() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let cuts = [8, 12, 16, 20]
        var text = ""
        for (offset, character) in hex.enumerated() {
            if cuts.contains(offset) { text += "-" }
            text.append(character)
        }
        return text
    }
}
