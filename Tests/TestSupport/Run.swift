// yt-gst — running the real binary (and other tools) from tests, always with a time limit.
import Foundation

/// The outcome of a finished process.
public struct RunResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// Wall time from launch to exit.
    public var seconds: Double
    /// True when the time limit killed it.
    public var timedOut: Bool
}

/// A started process whose output is collected into files (so pipes never fill up).
public final class Launched: @unchecked Sendable {
    public let process: Process
    let outURL: URL
    let errURL: URL
    let started = Date()

    init(process: Process, outURL: URL, errURL: URL) {
        self.process = process
        self.outURL = outURL
        self.errURL = errURL
    }

    public var pid: Int32 { process.processIdentifier }

    public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for exit up to `timeout` seconds, then kills it (SIGKILL) and reports `timedOut`.
    public func wait(timeout: Double) -> RunResult {
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(10_000)
        }
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        return RunResult(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "",
            seconds: seconds, timedOut: timedOut)
    }
}

public enum Run {
    /// Starts `executable` with `arguments`; stdin is /dev/null unless given.
    public static func launch(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> Launched {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let tmp = FileManager.default.temporaryDirectory
        let outURL = tmp.appendingPathComponent("yt-gst-out-\(UUID().uuidString)")
        let errURL = tmp.appendingPathComponent("yt-gst-err-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Launched(process: process, outURL: outURL, errURL: errURL)
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
