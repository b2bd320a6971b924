// yt-gst — helpers for the broadcast tests: tone files with titles, decoding what listeners got, tone checks.
import Foundation
import TestSupport

enum Broadcast {
    /// Writes a stereo 48 kHz tone of `seconds` at `frequency` to `path`, with LIST/INFO INAM/IART when given
    /// (GStreamer's wavenc writes the tags it gets as INFO entries).
    static func tone(
        _ path: String, seconds: Double, frequency: Double, title: String? = nil, artist: String? = nil
    ) throws {
        var tags: [String] = []
        if let title { tags.append("title=\(title)") }
        if let artist { tags.append("artist=\(artist)") }
        let buffers = Int((seconds * 48_000 / 1024).rounded())
        var arguments = [
            "-q", "audiotestsrc", "num-buffers=\(buffers)", "samplesperbuffer=1024", "freq=\(frequency)",
            "volume=0.5", "!", "audio/x-raw,rate=48000,channels=2,format=S16LE",
        ]
        if !tags.isEmpty { arguments += ["!", "taginject", "tags=\(tags.joined(separator: ","))"] }
        arguments += ["!", "wavenc", "!", "filesink", "location=\(path)"]
        let r = try Run.run("/usr/bin/gst-launch-1.0", arguments, timeout: 30)
        guard r.status == 0 else { throw NetworkLabError(description: "gst-launch tone: \(r.stderr)") }
    }

    /// Decodes any audio file GStreamer reads (Ogg, MP3, MPEG-TS) to mono 48 kHz 16-bit samples.
    static func decode(_ path: String) throws -> [Int16] {
        let out = path + ".decoded.wav"
        let r = try Run.run(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "filesrc", "location=\(path)", "!", "decodebin", "!", "audioconvert", "!", "audioresample", "!",
                "audio/x-raw,format=S16LE,channels=1,rate=48000", "!", "wavenc", "!", "filesink", "location=\(out)",
            ], timeout: 60)
        guard r.status == 0 else { throw NetworkLabError(description: "decode \(path): \(r.stderr)") }
        return samples(ofWAV: out)
    }

    /// The samples of a mono 16-bit WAV file (as wavenc writes it).
    static func samples(ofWAV path: String) -> [Int16] {
        guard let wav = try? OutputWAV(path: path), wav.bits == 16 else { return [] }
        var samples: [Int16] = []
        samples.reserveCapacity(wav.data.count / 2)
        var index = 0
        while index + 1 < wav.data.count {
            let left = Int16(bitPattern: UInt16(wav.data[index]) | UInt16(wav.data[index + 1]) << 8)
            samples.append(left)
            index += wav.frameBytes
        }
        return samples
    }

    /// A tone's measurements: its frequency (zero crossings), its level, and its SNR against the best-fitting
    /// sine at that frequency (what is not the tone is noise), over the samples from `skip` to `count - skip`.
    struct Tone {
        var frequency: Double
        var snr: Double
        var seconds: Double
    }

    /// The median of the tone's frequency over half-second stretches: robust against a few glitched stretches
    /// (a reconnect, a restart), which `measure` counts in.
    static func medianFrequency(_ samples: [Int16], rate: Int = 48_000) -> Double {
        var frequencies: [Double] = []
        var start = 0
        while start + rate / 2 <= samples.count {
            let part = samples[start..<(start + rate / 2)]
            let crossings = zip(part, part.dropFirst()).filter { $0.0 < 0 && $0.1 >= 0 }.count
            frequencies.append(Double(crossings * 2))
            start += rate / 2
        }
        return frequencies.sorted()[frequencies.count / 2]
    }

    static func measure(_ samples: [Int16], rate: Double = 48_000, skip: Int = 4_800) -> Tone {
        let seconds = Double(samples.count) / rate
        guard samples.count > 2 * skip + 4_800 else { return Tone(frequency: 0, snr: -.infinity, seconds: seconds) }
        let part = samples[skip..<(samples.count - skip)].map(Double.init)
        var crossings: [Int] = []
        for index in 1..<part.count where part[index - 1] < 0 && part[index] >= 0 { crossings.append(index) }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 2 else {
            return Tone(frequency: 0, snr: -.infinity, seconds: seconds)
        }
        let frequency = Double(crossings.count - 1) * rate / Double(last - first)
        // Least squares fit of a·sin + b·cos + c (the two are nearly orthogonal over many periods).
        let omega = 2 * Double.pi * frequency / rate
        var ss = 0.0
        var cc = 0.0
        var ys = 0.0
        var yc = 0.0
        let mean = part.reduce(0, +) / Double(part.count)
        for (index, value) in part.enumerated() {
            let s = sin(omega * Double(index))
            let c = cos(omega * Double(index))
            ss += s * s
            cc += c * c
            ys += (value - mean) * s
            yc += (value - mean) * c
        }
        let a = ys / ss
        let b = yc / cc
        var signal = 0.0
        var noise = 0.0
        for (index, value) in part.enumerated() {
            let fit = a * sin(omega * Double(index)) + b * cos(omega * Double(index))
            signal += fit * fit
            noise += (value - mean - fit) * (value - mean - fit)
        }
        return Tone(frequency: frequency, snr: 10 * log10(signal / max(noise, 1e-9)), seconds: seconds)
    }
}

extension NetworkLab {
    /// Starts `python3 -m http.server` for `directory` in `host` on `port` and waits until it answers.
    func serveDirectory(_ directory: String, in host: LabHost, port: Int) throws -> Launched {
        let server = try launch(
            in: host, "/usr/bin/python3", ["-m", "http.server", String(port), "--bind", host.address, "-d", directory])
        let answered = waitUntil(10) {
            (try? run(in: host, "/usr/bin/curl", ["-sf", "-o", "/dev/null", "http://\(host.address):\(port)/"]))?
                .status == 0
        }
        guard answered else { throw NetworkLabError(description: "http.server did not answer") }
        return server
    }
}

/// Reads an HLS playlist as it is rewritten and notes what RFC 8216 6.2.1 forbids: a media sequence that goes back,
/// a media sequence number given to two segment names, a segment name given to two numbers, a discontinuity sequence
/// that goes back; and which segments follow an EXT-X-DISCONTINUITY.
final class HLSPlaylistWatch {
    let path: String
    /// Each segment's name by its media sequence number.
    private(set) var names: [Int: String] = [:]
    /// When each segment name was first listed.
    private(set) var firstSeen: [String: Date] = [:]
    /// The media sequence numbers of the segments listed after an EXT-X-DISCONTINUITY.
    private(set) var discontinuities: Set<Int> = []
    private(set) var problems: [String] = []
    /// The last text read.
    private(set) var text = ""
    private var lastSequence = Int.min
    private var lastDiscontinuitySequence = 0

    init(path: String) { self.path = path }

    /// Reads the playlist once (if it is there), then waits 100 ms.
    func poll() {
        defer { usleep(100_000) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        let lines = text.split(separator: "\n").map(String.init)
        guard let first = Self.value(of: "#EXT-X-MEDIA-SEQUENCE:", in: lines) else { return }
        self.text = text
        if first < lastSequence { problems.append("media sequence \(lastSequence) then \(first)") }
        lastSequence = first
        let discontinuitySequence = Self.value(of: "#EXT-X-DISCONTINUITY-SEQUENCE:", in: lines) ?? 0
        if discontinuitySequence < lastDiscontinuitySequence {
            problems.append("discontinuity sequence \(lastDiscontinuitySequence) then \(discontinuitySequence)")
        }
        lastDiscontinuitySequence = discontinuitySequence
        var number = first
        var discontinuity = false
        for line in lines {
            if line == "#EXT-X-DISCONTINUITY" { discontinuity = true }
            guard !line.hasPrefix("#") else { continue }
            if let known = names[number], known != line { problems.append("\(number) was \(known), now \(line)") }
            if firstSeen[line] != nil, names[number] != line { problems.append("\(line) reused for \(number)") }
            names[number] = line
            if firstSeen[line] == nil { firstSeen[line] = Date() }
            if discontinuity { discontinuities.insert(number) }
            discontinuity = false
            number += 1
        }
    }

    /// The number after `tag` on its line, if the playlist has it.
    private static func value(of tag: String, in lines: [String]) -> Int? {
        lines.first { $0.hasPrefix(tag) }.flatMap { Int($0.dropFirst(tag.count)) }
    }
}
