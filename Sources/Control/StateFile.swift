// yt-gst — small JSON files kept across runs in $XDG_STATE_HOME/yt-gst/ (the hub's rooms, a room's identity).
import AppSrcFeeder
import Glibc
import Streaming

/// A JSON file under the user's state directory, read whole and replaced at once (written beside it, then renamed
/// over it), so a crash leaves the old file or the new one, never half of one.
public struct StateFile: Sendable, Equatable {
    public let path: String

    /// `$XDG_STATE_HOME/yt-gst/NAME` (default `~/.local/state/yt-gst/NAME`); nil without either variable.
    public init?(named name: String) {
        guard let directory = Self.directory else { return nil }
        path = directory + "/" + name
    }

    public init(path: String) { self.path = path }

    /// yt-gst's state directory, from the environment.
    static var directory: String? {
        if let state = FileSystem.environment("XDG_STATE_HOME"), state.hasPrefix("/") { return state + "/yt-gst" }
        guard let home = FileSystem.environment("HOME"), !home.isEmpty else { return nil }
        return home + "/.local/state/yt-gst"
    }

    /// What the file holds; nil when there is none yet.
    /// - Throws: `StateFileError` when it exists but is not JSON (it is then left as it is).
    public func read() throws(StateFileError) -> JSONValue? {
        guard FileSystem.kind(of: path) != .missing else { return nil }
        guard let text = FileSystem.readText(path) else { throw StateFileError(path: path, problem: "cannot be read") }
        do { return try JSONValue(parsing: text) } catch {
            throw StateFileError(path: path, problem: "is not JSON (byte \(error.offset))")
        }
    }

    /// Replaces the file with `value` (making its directories, 0700, first).
    public func write(_ value: JSONValue) throws(StateFileError) {
        try makeDirectories(FileSystem.directory(of: path))
        if let problem = NetworkFile.replace(path, with: value.text + "\n") {
            throw StateFileError(path: path, problem: problem)
        }
    }

    private func makeDirectories(_ directory: String) throws(StateFileError) {
        guard FileSystem.kind(of: directory) != .directory else { return }
        try makeDirectories(FileSystem.directory(of: directory))
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw StateFileError(path: directory, problem: String(cString: strerror(errno)))
        }
    }
}

/// A state file that could not be read or written: its path and why.
public struct StateFileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var problem: String

    public var description: String { "\(path): \(problem)" }
}
