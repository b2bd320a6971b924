// yt-gst — finding every process a test started, wherever it went: a marker in the environment, which every
// descendant inherits, even one that left the process group or session (setsid) or sits in another namespace.
import Foundation

/// A unique value of `YT_GST_TEST_RUN` in a process's environment, shared by all its descendants.
public struct ProcessMarker: Sendable, CustomStringConvertible {
    public static let variable = "YT_GST_TEST_RUN"
    public let value: String

    public init() { value = UUID().uuidString }

    /// `YT_GST_TEST_RUN=VALUE`, for a launch's environment.
    public var environment: [String: String] { [ProcessMarker.variable: value] }

    public var description: String { "\(ProcessMarker.variable)=\(value)" }

    /// The processes (other than zombies, whose environment is gone) that carry this marker.
    public func processes() -> [pid_t] {
        let entry = Array(description.utf8)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name -> pid_t? in
            guard let pid = pid_t(name), let environ = FileManager.default.contents(atPath: "/proc/\(name)/environ")
            else { return nil }
            return environ.split(separator: 0).contains { $0.elementsEqual(entry) } ? pid : nil
        }
    }

    /// Kills (SIGKILL) every process that carries this marker, again until none is left (one may have forked in
    /// between), for up to `timeout` seconds. Returns how many it killed.
    @discardableResult
    public func killAll(timeout: Double = 10) -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        var killed = Set<pid_t>()
        while Date() < deadline {
            let left = processes()
            if left.isEmpty { break }
            for pid in left where kill(pid, SIGKILL) == 0 { killed.insert(pid) }
            usleep(20_000)
        }
        return killed.count
    }
}
