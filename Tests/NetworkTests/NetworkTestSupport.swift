// yt-gst — helpers for the network tests: signals with known samples, WAV output checks, alignment, the binary.
import Foundation
import TestSupport
import Testing

/// A test signal: a tone plus deterministic noise (so no stretch repeats and alignment is unique), or a pure tone.
enum Signal {
    /// Interleaved little-endian samples of `bits` (16 or 24) for `frames` frames.
    static func bytes(
        frames: Int, rate: Int, channels: Int, bits: Int, noise: Bool = true, frequency: Double = 997
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(frames * channels * bits / 8)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        let full = Double((1 << (bits - 1)) - 1)
        for frame in 0..<frames {
            for channel in 0..<channels {
                var value = sin(2 * .pi * frequency * Double(frame) / Double(rate) + Double(channel)) * 0.4
                if noise {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    value += (Double(seed >> 11) / Double(1 << 53) - 0.5) * 0.2
                }
                let integer = Int64((value * full).rounded())
                for byte in 0..<(bits / 8) { out.append(UInt8(truncatingIfNeeded: integer >> (8 * byte))) }
            }
        }
        return out
    }

    /// Writes a WAV of these samples.
    static func write(_ samples: [UInt8], rate: Int, channels: Int, bits: Int, to url: URL) throws -> String {
        var wav = SyntheticWAV.tone(frames: 1, rate: rate, channels: channels, bits: bits)
        wav.samples = samples
        return try wav.write(to: url)
    }
}

/// A WAV file as written by `wavenc`, read with a parser of its own and checked for a finalised header.
struct OutputWAV {
    var rate = 0
    var channels = 0
    var bits = 0
    var data: [UInt8] = []
    /// RIFF size == file size - 8 and data size == the bytes that follow the data header.
    var headerIsFinal = false

    init(path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46][...],
            bytes[8..<12] == [0x57, 0x41, 0x56, 0x45][...]
        else { throw NetworkLabError(description: "\(path): not a RIFF/WAVE file (\(bytes.count) bytes)") }
        var offset = 12
        var riffOK = u32(4) == bytes.count - 8
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            if id == "fmt " {
                channels = u16(offset + 10)
                rate = u32(offset + 12)
                bits = u16(offset + 22)
            } else if id == "data" {
                let end = min(offset + 8 + size, bytes.count)
                data = Array(bytes[(offset + 8)..<end])
                riffOK = riffOK && offset + 8 + size == bytes.count
                break
            }
            offset += 8 + size + size % 2
        }
        headerIsFinal = riffOK && rate > 0
    }

    var frameBytes: Int { channels * bits / 8 }
}

enum Align {
    /// The frame offset in `input` where `output` starts (searching its first 64 frames), or nil.
    static func offset(of output: [UInt8], in input: [UInt8], frameBytes: Int) -> Int? {
        let probe = min(output.count, 64 * frameBytes)
        guard probe > 0 else { return nil }
        let head = output[0..<probe]
        var start = 0
        while start + probe <= input.count {
            if input[start..<(start + probe)] == head { return start / frameBytes }
            start += frameBytes
        }
        return nil
    }

    /// Walks `output` against `input` allowing only forward jumps (skipped packets): returns the skipped stretches
    /// of the input (frame ranges) and the count of output frames that match nothing (wrong samples).
    static func walk(
        _ output: [UInt8], in input: [UInt8], frameBytes: Int, maxJumpFrames: Int = 4_096
    )
        -> (jumps: [Int], gaps: [Range<Int>], wrongFrames: Int)
    {
        guard var position = offset(of: output, in: input, frameBytes: frameBytes) else {
            return ([], [], output.count / frameBytes)
        }
        var jumps: [Int] = []
        var gaps: [Range<Int>] = []
        var wrong = 0
        var index = 0
        let frames = output.count / frameBytes
        func same(_ o: Int, _ i: Int, count: Int) -> Bool {
            guard (i + count) * frameBytes <= input.count, (o + count) * frameBytes <= output.count else {
                return false
            }
            return output[(o * frameBytes)..<((o + count) * frameBytes)]
                == input[(i * frameBytes)..<((i + count) * frameBytes)]
        }
        while index < frames {
            if same(index, position, count: 1) {
                index += 1
                position += 1
                continue
            }
            // Resynchronise: the next 32 frames must match somewhere ahead.
            let window = min(32, frames - index)
            var found: Int? = nil
            for jump in 1...maxJumpFrames where same(index, position + jump, count: window) {
                found = jump
                break
            }
            if let jump = found {
                jumps.append(jump)
                gaps.append(position..<(position + jump))
                position += jump
            } else {
                wrong += 1
                index += 1
                position += 1
            }
        }
        return (jumps, gaps, wrong)
    }
}

enum Binary {
    static var path: String { Paths.binary }
}

/// Polls `condition` every `interval` (20 ms) for up to `seconds`.
func waitUntil(_ seconds: Double, every interval: Double = 0.02, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(UInt32(interval * 1e6))
    }
    return condition()
}

extension NetworkLab {
    /// Waits until sockets in `host` are bound to every UDP port in `ports` (IPv4 or IPv6), as its namespace's
    /// /proc/net/udp and udp6 list them: a receiver is listening once they exist (datagrams that arrive from
    /// then on wait in the socket). False when they did not appear within `seconds`.
    func waitUntilListening(in host: LabHost, udpPorts ports: [Int], seconds: Double = 20) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            let table = try run(in: host, "/bin/cat", ["/proc/net/udp", "/proc/net/udp6"], timeout: 10).stdout
            // Each socket line: "sl local_address rem_address ...", the local address ending in ":PORT" (hex).
            let bound = Set(
                table.split(separator: "\n").compactMap { line -> Int? in
                    let fields = line.split(separator: " ")
                    guard fields.count > 2, let port = fields[1].split(separator: ":").last else { return nil }
                    return Int(port, radix: 16)
                })
            if ports.allSatisfy(bound.contains) { return true }
            usleep(20_000)
        } while Date() < deadline
        return false
    }

    /// Sends one UDP datagram from `host` to `address`:`port` (IPv4).
    func sendDatagram(_ bytes: [UInt8], from host: LabHost, to address: String, port: Int) throws {
        let sent = try withNamespace(of: host) { () -> Int in
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard fd >= 0 else { return -1 }
            defer { Glibc.close(fd) }
            var target = sockaddr_in()
            target.sin_family = sa_family_t(AF_INET)
            target.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, address, &target.sin_addr)
            return withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard sent == bytes.count else {
            throw NetworkLabError(description: "sendto \(address):\(port): errno \(errno)")
        }
    }
}

/// Waits until the file at `path` holds more than `bytes` bytes (a receiver's output has begun to arrive).
func waitUntilFile(_ path: String, holdsMoreThan bytes: Int, seconds: Double = 20) -> Bool {
    waitUntil(seconds) {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > bytes
    }
}
