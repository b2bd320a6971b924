// yt-gst — running the real binary (and other tools) from tests, always with a time limit.
import Foundation

/// How a process ended.
public enum Termination: Equatable, Sendable, CustomStringConvertible {
    /// It called exit (or returned from main) with this code.
    case exited(Int32)
    /// This signal killed it (WIFSIGNALED): it did not handle the signal and exit by itself.
    case signalled(Int32)

    /// Decodes a `waitpid` status.
    init(waitStatus status: Int32) {
        let signal = status & 0x7F
        self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }

    public var description: String {
        switch self {
        case .exited(let code): "exited with \(code)"
        case .signalled(let signal): "killed by signal \(signal)"
        }
    }
}

/// The outcome of a finished process.
public struct RunResult: Sendable {
    /// Whether it exited (and with which code) or was killed by a signal.
    public var termination: Termination
    /// Exit code, or 128 + signal number for a process killed by a signal (as shells report it): use `termination`
    /// where the difference matters.
    public var status: Int32 {
        switch termination {
        case .exited(let code): code
        case .signalled(let signal): 128 + signal
        }
    }
    public var stdout: String
    public var stderr: String
    /// Wall time from launch to exit.
    public var seconds: Double
    /// True when the time limit killed it.
    public var timedOut: Bool

    /// The error convention of the tool: stderr is exactly one line, and it mentions `text`.
    public func saysOneLine(containing text: String) -> Bool {
        stderr.split(separator: "\n").count == 1 && stderr.contains(text)
    }
}

/// A started process whose output goes to files (so pipes never fill up).
///
/// Spawned with `posix_spawn` and reaped with `waitpid` directly: Foundation's `Process` inherits the test thread's
/// blocked signals and does not always notice a child that daemonises (tmux).
public final class Launched: @unchecked Sendable {
    public let pid: pid_t
    let outPath: String
    let errPath: String
    let started = Date()
    private var termination: Termination?

    init(pid: pid_t, outPath: String, errPath: String) {
        self.pid = pid
        self.outPath = outPath
        self.errPath = errPath
    }

    public func signal(_ signal: Int32) { kill(pid, signal) }

    /// Waits until the process has a handler installed for `signal` (the SigCgt mask in /proc/PID/status), so a
    /// signal sent next is handled instead of killing it with the default action. False if that did not happen
    /// within `timeout` seconds, or the process ended.
    public func waitUntilCatching(_ signal: Int32, timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning && Date() < deadline {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
                let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16),
                mask & (1 << UInt64(signal - 1)) != 0
            {
                return true
            }
            usleep(5_000)
        }
        return false
    }

    /// Whether it still runs (reaps it when it has ended).
    public var isRunning: Bool {
        guard termination == nil else { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        termination = Termination(waitStatus: status)
        return false
    }

    /// Waits for exit up to `timeout` seconds, then kills it (SIGKILL) and reports `timedOut`.
    public func wait(timeout: Double) -> RunResult {
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while isRunning {
            if Date() > deadline {
                timedOut = true
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
                termination = Termination(waitStatus: status)
                break
            }
            usleep(5_000)
        }
        let seconds = Date().timeIntervalSince(started)
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        return RunResult(
            termination: termination ?? .exited(-1),
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "", seconds: seconds,
            timedOut: timedOut)
    }
}

public enum Run {
    /// Starts `executable` with `arguments`, stdin /dev/null, no signals blocked, extra `environment` added.
    public static func launch(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> Launched {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let tmp = FileManager.default.temporaryDirectory.path
        let outPath = "\(tmp)/yt-gst-out-\(UUID().uuidString)"
        let errPath = "\(tmp)/yt-gst-err-\(UUID().uuidString)"

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw HarnessError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return Launched(pid: pid, outPath: outPath, errPath: errPath)
    }

    /// Runs to completion (or `timeout` seconds, then kills it).
    public static func run(
        _ executable: String, _ arguments: [String], timeout: Double = 30, environment: [String: String] = [:]
    ) throws -> RunResult {
        try launch(executable, arguments, environment: environment).wait(timeout: timeout)
    }

    /// Runs the yt-gst binary under test.
    public static func ytGst(_ arguments: [String], timeout: Double = 30) throws -> RunResult {
        try run(Paths.binary, arguments, timeout: timeout)
    }
}
