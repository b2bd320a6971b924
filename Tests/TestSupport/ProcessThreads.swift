// yt-gst — a process's threads as /proc shows them: their ids, names and scheduling policies.
import Foundation

/// The threads of a process (this one: `getpid()`), read from /proc/PID/task.
public enum ProcessThreads {
    /// The ids of the process's threads now.
    public static func threads(_ pid: pid_t) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []).compactMap { pid_t($0) }
    }

    /// A thread's name (its `comm`), nil once it has ended.
    public static func name(_ pid: pid_t, thread: pid_t) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .newlines)
    }

    /// The names of the process's threads now.
    public static func names(_ pid: pid_t) -> Set<String> {
        Set(threads(pid).compactMap { name(pid, thread: $0) })
    }

    /// A thread's scheduling policy (field 41 of /proc/PID/task/TID/stat; the name before it may hold spaces).
    public static func policy(_ pid: pid_t, thread: pid_t) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 38 ? Int32(fields[38]) : nil
    }
}
