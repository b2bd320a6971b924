// yt-gst — a real `yt-gst play --input-ipc-server` for the IPC tests, its output readable as it plays.
import Foundation
import TestSupport

/// `yt-gst play` of a position-coded file, paced by the clock (`identity sync=true`), into a file of float samples
/// (through descriptor 3, which a flushing seek does not rewind), with its IPC socket in a scratch directory.
final class IPCPlayer {
    static let rate = 44_100
    let dir: URL
    let socket: String
    let output: String
    let input: String
    let process: Launched

    init(seconds: Int = 30, extra: [String] = []) throws {
        dir = try Paths.makeScratch("ipc")
        input = try SyntheticWAV.positionCoded(frames: Self.rate * seconds, rate: Self.rate)
            .write(to: dir.appendingPathComponent("coded.wav"))
        socket = dir.appendingPathComponent("yt.sock").path
        output = dir.appendingPathComponent("out.f32").path
        let pipeline = "appsrc name=src ! identity sync=true ! audioconvert ! audio/x-raw,format=F32LE ! fdsink fd=3"
        let words =
            [Paths.binary, "play", input, "--chunk-ms", "50", "--pipeline", pipeline, "--input-ipc-server", socket]
            + extra
        let command = "exec " + words.map { "'\($0)'" }.joined(separator: " ") + " 3>'\(output)'"
        process = try Run.launch("/bin/sh", ["-c", command])
    }

    deinit {
        if process.isRunning { _ = process.wait(timeout: 0) }
        Paths.removeScratch(dir)
    }

    func client() throws -> IPCTestClient { try IPCTestClient(path: socket) }

    /// Bytes of output so far.
    var outputBytes: Int { (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0 }

    /// Waits until the output has grown by `seconds` of audio (bounded by 20 s of wall time).
    func waitForOutput(seconds: Double) -> Bool {
        let target = outputBytes + Int(seconds * Double(Self.rate * 8))
        let deadline = Date().addingTimeInterval(20)
        while outputBytes < target && Date() < deadline { usleep(10_000) }
        return outputBytes >= target
    }

    func playedRuns() throws -> PlayedRuns {
        PlayedRuns(interleaved: RecordedWAV.floats(try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))))
    }
}
