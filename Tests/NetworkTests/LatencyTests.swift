// yt-gst — sender-to-receiver latency of an unsynchronised receiver (--no-sync: its 50 ms jitter buffer),
// measured on one clock. (A synchronised receiver plays at the sender's time + --latency-ms, 80 ms by default;
// scripts/multiroom-bench measures that, sending to sound.)
//
// Both namespaces share CLOCK_MONOTONIC. A packet sniffer in the receiver's namespace stamps each RTP packet as
// it arrives (the sender's udpsink sends each packet at its sample time, and the veth adds microseconds); the
// receiver renders into a FIFO through a synchronised filesink, and a reader stamps each write. For the first
// sample of each of several tone bursts: latency = render time - arrival time. Prints `latency_ms=<median>`
// (scripts/measure-latency.sh runs this test and passes that line on to the benchmark, which holds the 60 ms goal:
// a loaded machine can miss a tight window, so the test itself only bounds it generously).
import Foundation
import TestSupport
import Testing

@Suite(.serialized, .enabled(if: NetworkLab.available, "needs root and iproute2 (network namespaces)"))
struct LatencyTests {
    static let rate = 48_000
    static let burstEvery = 24_000  // frames: a burst every 0.5 s
    static let bursts = 7

    @Test func defaultLatencyIsMeasured() throws {
        NetworkLab.removeStale()
        let dir = try Paths.makeScratch("latency")
        defer { Paths.removeScratch(dir) }
        let lab = try NetworkLab(hosts: ["s", "r"])
        defer { lab.close() }
        let rate = LatencyTests.rate
        var samples = [UInt8](repeating: 0, count: rate * 4 * 4)
        for burst in 1...LatencyTests.bursts {
            for frame in 0..<(rate / 50) {  // 20 ms of tone
                let value = Int16(sin(2 * .pi * 1_000 * Double(frame) / Double(rate) + 0.5) * 16_000)
                let at = (burst * LatencyTests.burstEvery + frame) * 4
                for channel in 0..<2 {
                    samples[at + 2 * channel] = UInt8(truncatingIfNeeded: value)
                    samples[at + 2 * channel + 1] = UInt8(truncatingIfNeeded: value >> 8)
                }
            }
        }
        let file = try Signal.write(
            samples, rate: rate, channels: 2, bits: 16, to: dir.appendingPathComponent("bursts.wav"))
        let fifo = dir.appendingPathComponent("out.pcm").path
        #expect(mkfifo(fifo, 0o600) == 0)

        let sniffer = try PacketSniffer(lab: lab, host: lab.host("r"), udpPort: 5004)
        let reader = FIFOReader(path: fifo)
        let receiver = try lab.launch(
            in: lab.host("r"), Binary.path,
            [
                "receive", "rtp://@:5004", "--no-sync", "--timeout", "5", "--sink",
                "audio/x-raw,format=S16LE,rate=\(rate),channels=2 ! filesink location=\(fifo) buffer-mode=unbuffered sync=true",
            ])
        try #require(
            try lab.waitUntilListening(in: lab.host("r"), udpPorts: [5004, 5005]), "the receiver never listened")
        let sent = try lab.run(
            in: lab.host("s"), Binary.path, ["stream", "-q", file, "--to", "rtp://\(lab.host("r").address):5004"],
            timeout: 20)
        let received = receiver.wait(timeout: 10)
        let packets = sniffer.stop()
        let writes = reader.wait()
        #expect(sent.status == 0 && received.status == 0, "\(sent.stderr) \(received.stderr)")

        // Arrival time of sample n (n counted from the first packet's RTP timestamp).
        let first = try #require(packets.first, "no packets captured")
        func arrival(ofFrame n: Int) -> Double? {
            for packet in packets {
                let start = Int(packet.timestamp &- first.timestamp)
                if n >= start && n < start + packet.frames { return packet.time + Double(n - start) / Double(rate) }
            }
            return nil
        }
        // Render time of output frame m: the write that carried it, plus its place in that write.
        func render(ofFrame m: Int) -> Double? {
            for write in writes where m * 4 >= write.offset && m * 4 < write.offset + write.count {
                return write.time + Double(m - write.offset / 4) / Double(rate)
            }
            return nil
        }
        let output = writes.reduce(into: [UInt8]()) { $0 += $1.bytes }
        var latencies: [Double] = []
        for burst in 1...LatencyTests.bursts {
            let expected = burst * LatencyTests.burstEvery
            // Find the burst's first loud sample in the output near where it belongs.
            let onset = stride(from: max(0, expected - 2_000), to: min(output.count / 4, expected + 2_000), by: 1).first
            {
                abs(Int(Int16(bitPattern: UInt16(output[$0 * 4]) | UInt16(output[$0 * 4 + 1]) << 8))) > 1_000
            }
            guard let onset, let sentAt = arrival(ofFrame: onset), let shownAt = render(ofFrame: onset) else {
                continue
            }
            latencies.append((shownAt - sentAt) * 1000)
        }
        #expect(
            latencies.count >= LatencyTests.bursts - 1, "measured \(latencies.count) of \(LatencyTests.bursts) bursts")
        let sorted = latencies.sorted()
        let median = sorted.isEmpty ? .infinity : sorted[sorted.count / 2]
        print("latency_ms=\(String(format: "%.1f", median))")
        print("latency_samples_ms=\(sorted.map { String(format: "%.1f", $0) }.joined(separator: ","))")
        // Rendered after it arrived, and within half a second (the goal, <= 60 ms, is the benchmark's).
        #expect(median > 0 && median < 500, "median latency \(median) ms")
    }
}

/// Captures the UDP packets to one port that arrive in a namespace (AF_PACKET, IPv4), stamped on CLOCK_MONOTONIC.
final class PacketSniffer: @unchecked Sendable {
    struct Packet {
        var time: Double
        var timestamp: UInt32
        var frames: Int
    }

    private let socket: Int32
    private let lock = NSLock()
    private var packets: [Packet] = []
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init(lab: NetworkLab, host: LabHost, udpPort: Int) throws {
        let ethernetIPv4 = UInt16(0x0800).bigEndian
        socket = try lab.withNamespace(of: host) {
            Glibc.socket(AF_PACKET, Int32(SOCK_DGRAM.rawValue), Int32(ethernetIPv4))
        }
        guard socket >= 0 else { throw NetworkLabError(description: "AF_PACKET socket: errno \(errno)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !isStopped {
                let count = recv(socket, &buffer, buffer.count, 0)
                guard count > 28 else { continue }
                let time = monotonicSeconds()
                let ihl = Int(buffer[0] & 0x0F) * 4
                guard buffer[9] == 17, count > ihl + 8 + 12,
                    Int(buffer[ihl + 2]) << 8 | Int(buffer[ihl + 3]) == udpPort
                else { continue }
                let rtp = ihl + 8
                let header = 12 + 4 * Int(buffer[rtp] & 0x0F)
                let timestamp = (rtp + 4..<rtp + 8).reduce(UInt32(0)) { $0 << 8 | UInt32(buffer[$1]) }
                let frames = (count - rtp - header) / 4
                lock.lock()
                packets.append(Packet(time: time, timestamp: timestamp, frames: frames))
                lock.unlock()
            }
            done.signal()
        }
        thread.start()
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    /// Stops capturing and returns the packets in arrival order.
    func stop() -> [Packet] {
        lock.lock()
        stopped = true
        lock.unlock()
        done.wait()
        Glibc.close(socket)
        return packets
    }
}

/// Reads a FIFO to its end on a thread, stamping each read on CLOCK_MONOTONIC.
final class FIFOReader: @unchecked Sendable {
    struct Write {
        var time: Double
        var offset: Int
        var count: Int
        var bytes: [UInt8]
    }

    private var writes: [Write] = []
    private let done = DispatchSemaphore(value: 0)

    init(path: String) {
        let thread = Thread { [self] in
            let fd = open(path, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            var offset = 0
            while fd >= 0 {
                let count = read(fd, &buffer, buffer.count)
                guard count > 0 else { break }
                writes.append(
                    Write(time: monotonicSeconds(), offset: offset, count: count, bytes: Array(buffer[0..<count])))
                offset += count
            }
            if fd >= 0 { Glibc.close(fd) }
            done.signal()
        }
        thread.start()
    }

    /// Waits for the writer to close the FIFO (up to 10 s) and returns what was read.
    func wait() -> [Write] {
        _ = done.wait(timeout: .now() + 10)
        return writes
    }
}

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
