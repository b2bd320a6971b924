import Foundation
import TestSupport
import Testing

// yt-gst — the crash-safe WAV writer: every format read back by our reader and by python's wave, libsndfile, sox
// and GStreamer's wavparse; the file valid after every write; RF64 past a (lowered) threshold; markers; a full
// device; the streaming header.
@testable import WAV

/// A file in memory on a device of `capacity` bytes, standing in for a disk that fills up, or for a pipe.
///
/// Like a real file system, growing the file (truncate) only makes a hole; space is taken when a byte of a hole is
/// first written, so a write can come up short in the middle of the file.
final class MemoryFile: WritableFile {
    var bytes: [UInt8] = []
    /// Which bytes have been written (holes have not).
    var allocated: [Bool] = []
    /// Bytes of the device in use.
    private(set) var used = 0
    let capacity: Int
    let isSeekable: Bool
    var syncs = 0
    /// Every state the file went through, one after each write or truncate: what a kill at that moment leaves.
    var snapshots: [(operation: String, bytes: [UInt8])]?

    init(capacity: Int = .max, seekable: Bool = true) {
        self.capacity = capacity
        self.isSeekable = seekable
    }

    func write(_ buffer: UnsafeRawBufferPointer, at offset: Int64) throws(WAVWriteError) -> Int {
        let start = isSeekable ? Int(offset) : bytes.count
        if bytes.count < start + buffer.count {
            bytes += [UInt8](repeating: 0, count: start + buffer.count - bytes.count)
            allocated += [Bool](repeating: false, count: start + buffer.count - allocated.count)
        }
        var written = 0
        for (index, byte) in buffer.enumerated() {
            if !allocated[start + index] {
                guard used < capacity else { break }
                allocated[start + index] = true
                used += 1
            }
            bytes[start + index] = byte
            written += 1
        }
        truncateUnwritten(after: start + written)
        guard written > 0 || buffer.isEmpty else { throw WAVWriteError(.noSpace, "No space left on device") }
        snapshots?.append(("write \(written) at \(start)", bytes))
        return written
    }

    /// A write that stopped short extended the file only as far as it got.
    private func truncateUnwritten(after end: Int) {
        while bytes.count > max(end, logicalLength) && !allocated[bytes.count - 1] {
            bytes.removeLast()
            allocated.removeLast()
        }
    }

    /// The length set by the last truncate (holes up to it are part of the file).
    private var logicalLength = 0

    func synchronize() throws(WAVWriteError) { syncs += 1 }

    func truncate(to length: Int64) throws(WAVWriteError) {
        let length = Int(length)
        if bytes.count > length {
            used -= allocated[length...].filter { $0 }.count
            bytes.removeLast(bytes.count - length)
            allocated.removeLast(allocated.count - length)
        }
        if bytes.count < length {
            bytes += [UInt8](repeating: 0, count: length - bytes.count)
            allocated += [Bool](repeating: false, count: length - allocated.count)
        }
        logicalLength = length
        snapshots?.append(("truncate to \(length)", bytes))
    }
}

@Suite struct WAVWriterTests {
    /// Deterministic sample bytes: `frames` frames of `format`.
    static func pattern(frames: Int, blockAlign: Int, seed: Int = 1) -> [UInt8] {
        (0..<frames * blockAlign).map { UInt8(truncatingIfNeeded: ($0 &* 7919 &+ seed &* 31) >> 3) }
    }

    /// Options for files in memory: a small tail, so the holes a MemoryFile materialises stay small.
    static var small: WAVWriter.Options {
        var options = WAVWriter.Options()
        options.preallocation = 4_096
        return options
    }

    static func parse(_ bytes: [UInt8]) throws -> WAVFile { try WAVFile(reader: MemoryReader(bytes)) }

    static let cases: [(SampleFormat, Int, Int)] = [
        (.s16, 8_000, 1), (.s16, 48_000, 2), (.s24, 48_000, 2), (.s24, 44_100, 1), (.s32, 96_000, 2),
        (.f32, 48_000, 2), (.u8, 8_000, 1), (.alaw, 8_000, 1), (.mulaw, 8_000, 2), (.s16, 48_000, 6),
        (.f32, 48_000, 3),
    ]

    @Test(arguments: cases)
    func everyFormatReadsBackExactly(sample: SampleFormat, rate: Int, channels: Int) throws {
        let format = WAVFormat.recording(sample, sampleRate: rate, channels: channels)
        let file = MemoryFile()
        let writer = try WAVWriter(file: file, format: format, options: Self.small)
        let data = Self.pattern(frames: 1_001, blockAlign: format.blockAlign)
        // Uneven pieces: partial frames wait for the rest.
        var at = 0
        for size in [1, 7, 300, 2_000].cycled(until: data.count) {
            let end = min(at + size, data.count)
            try writer.append(Array(data[at..<end]))
            at = end
        }
        try writer.finish()
        let wav = try Self.parse(file.bytes)
        #expect(wav.warnings.isEmpty, "\(wav.warnings)")
        #expect(wav.container == .riff)
        #expect(wav.format.channels == channels && wav.format.sampleRate == rate)
        #expect(wav.format.bitsPerSample == sample.bitsPerSample && wav.format.effectiveTag == sample.formatTag)
        #expect(wav.format.formatTag == (channels > 2 ? 0xFFFE : sample.formatTag))
        #expect(wav.frameCount == 1_001)
        #expect(Array(file.bytes[Int(wav.dataOffset)..<Int(wav.dataOffset) + data.count]) == data)
        #expect(file.bytes.count == Int(wav.dataOffset) + data.count, "nothing after the data, not even a pad byte")
        #expect(wav.fileSize == 8 + Int64(Self.u32(file.bytes, 4)), "the RIFF size covers the whole file")
    }

    @Test(arguments: cases)
    func independentReadersAgree(sample: SampleFormat, rate: Int, channels: Int) throws {
        let dir = try Paths.makeScratch("writer")
        defer { Paths.removeScratch(dir) }
        let path = dir.appendingPathComponent("rec.wav").path
        let format = WAVFormat.recording(sample, sampleRate: rate, channels: channels)
        let writer = try WAVWriter(file: try FileWriter(path: path, replacing: false), format: format)
        try writer.append(Self.pattern(frames: 4_801, blockAlign: format.blockAlign))
        try writer.finish()
        let readers = try IndependentReaders.check(path)
        #expect(readers.soundfile == 4_801, "\(readers)")
        #expect(readers.sox == 4_801, "\(readers)")
        #expect(readers.wavparseBytes == 4_801 * format.blockAlign, "\(readers)")
        if channels <= 2 && [.s16, .s24, .s32, .u8].contains(sample) {
            #expect(readers.pythonWave == 4_801, "\(readers)")  // python 3.11's wave reads plain PCM only
        }
    }

    /// Every state the file passes through (after each system call) is what a kill at that moment leaves: all of
    /// them open without a warning, with a header that states exactly the frames of the data chunk and a RIFF size
    /// that covers the file, except in the few steps that grow the file.
    @Test func everyIntermediateStateIsAValidFile() throws {
        let format = WAVFormat.recording(.s24, sampleRate: 8_000, channels: 1)  // 3-byte frames: odd sizes, pad bytes
        let file = MemoryFile()
        file.snapshots = []
        var options = WAVWriter.Options()
        options.rf64Threshold = 10_000
        options.preallocation = 4_096
        let writer = try WAVWriter(file: file, format: format, options: options)
        var frames = 0
        var committed: [Int] = [0]
        for step in 1...40 {
            try writer.append(Self.pattern(frames: step * 7, blockAlign: 3, seed: step))
            frames += step * 7
            committed.append(frames)
            if step == 20 { try writer.addMarker() }
            let wav = try Self.parse(file.bytes)
            #expect(wav.frameCount == frames && wav.warnings.isEmpty, "after append \(step): \(wav.warnings)")
            #expect(wav.container == (writer.isRF64 ? .rf64 : .riff))
        }
        try writer.finish()
        var growing = 0
        var invalid: [String] = []
        let snapshots = try #require(file.snapshots)
        // The last two: the final header (the tail then lies past the RIFF's end), then the cut.
        for (index, snapshot) in snapshots.dropLast(2).enumerated() {
            if snapshot.operation.hasPrefix("truncate") { growing = 2 }  // the truncate and the JUNK size after it
            let empty = ["the data chunk holds no audio"]  // before the first audio: a valid, empty WAV
            guard let wav = try? Self.parse(snapshot.bytes), wav.warnings.isEmpty || wav.warnings == empty,
                UInt64(wav.fileSize) == Self.riffSize(snapshot.bytes) + 8,
                committed.contains(Int(wav.frameCount)),
                wav.chunks.first(where: { $0.id == "data" })?.size == UInt64(wav.frameCount) * 3
            else {
                if growing == 0 { invalid.append("\(index) \(snapshot.operation)") }
                growing = max(0, growing - 1)
                continue
            }
            growing = max(0, growing - 1)
        }
        #expect(invalid.isEmpty, "states a kill could leave broken: \(invalid)")
        #expect(snapshots.count > 150 && writer.isRF64)
        let final = try Self.parse(file.bytes)
        #expect(final.frameCount == frames && final.warnings.isEmpty && final.chunks.last?.id == "data")
    }

    static func riffSize(_ bytes: [UInt8]) -> UInt64 {
        let size32 = u32(bytes, 4)
        guard size32 == 0xFFFF_FFFF else { return UInt64(size32) }
        return (0..<8).reduce(0) { $0 | UInt64(bytes[20 + $1]) << (8 * UInt64($1)) }  // ds64's RIFF size
    }

    @Test func becomesRF64PastTheThresholdAndReadersFollow() throws {
        let dir = try Paths.makeScratch("writer")
        defer { Paths.removeScratch(dir) }
        let path = dir.appendingPathComponent("rf64.wav").path
        let format = WAVFormat.recording(.s16, sampleRate: 48_000, channels: 2)
        var options = WAVWriter.Options()
        options.rf64Threshold = 100_000
        options.preallocation = 8_192
        let writer = try WAVWriter(file: try FileWriter(path: path, replacing: false), format: format, options: options)
        for _ in 0..<10 { try writer.append(Self.pattern(frames: 4_800, blockAlign: 4)) }
        try writer.addMarker()
        try writer.finish()
        let (wav, _) = try WAVFile.open(path: path)
        #expect(wav.container == .rf64 && wav.frameCount == 48_000 && wav.warnings.isEmpty, "\(wav.warnings)")
        #expect(wav.chunks.first?.id == "ds64", "the reserved JUNK became ds64 in place")
        #expect(wav.metadata.cuePoints.map(\.position) == [48_000])
        let readers = try IndependentReaders.check(path)
        #expect(readers.soundfile == 48_000 && readers.wavparseBytes == 48_000 * 4, "\(readers)")
    }

    @Test func markersMetadataAndBext() throws {
        var options = WAVWriter.Options()
        options.info = [.init(id: "INAM", value: "Memo"), .init(id: "IART", value: "Me"), .init(id: "ICMT", value: "")]
        let broadcast = WAVMetadata.Broadcast(
            description: "", originator: "yt-gst", originatorReference: "", originationDate: "2026-11-30",
            originationTime: "14:05:00", timeReference: 14 * 3600 * 8_000 + 300 * 8_000, version: 1,
            codingHistory: "A=PCM,F=8000,W=16,M=mono,T=yt-gst\r\n")
        options.broadcast = broadcast
        let file = MemoryFile()
        let writer = try WAVWriter(
            file: file, format: .recording(.s16, sampleRate: 8_000, channels: 1), options: options)
        // 60 markers: the first ~40 fit in the header, then all of them go after the data at the end.
        for step in 0..<60 {
            try writer.append(Self.pattern(frames: 100, blockAlign: 2))
            try writer.addMarker()
            if step == 10 {
                let early = try Self.parse(file.bytes)
                #expect(early.metadata.cuePoints.count == 11, "markers are on disk as they come")
            }
        }
        try writer.finish()
        let wav = try Self.parse(file.bytes)
        #expect(wav.warnings.isEmpty, "\(wav.warnings)")
        #expect(wav.metadata.info.map(\.id) == ["INAM", "IART"] && wav.metadata.info.first?.value == "Memo")
        var stored = broadcast
        stored.codingHistory = "A=PCM,F=8000,W=16,M=mono,T=yt-gst"  // the reader drops trailing white space
        #expect(wav.metadata.broadcast == stored)
        #expect(wav.metadata.cuePoints.count == 60)
        #expect(wav.metadata.cuePoints.map(\.position) == (1...60).map { UInt32($0 * 100) })
        #expect(wav.metadata.cuePoints.last?.label == "marker 60")
        #expect(wav.frameCount == 6_000)
    }

    /// A device that fills up: the write error comes out once, the file holds the whole frames that fit.
    @Test(arguments: [3_000, 3_001, 3_333])
    func aFullDeviceLeavesAValidFile(capacity: Int) throws {
        let file = MemoryFile(capacity: capacity)
        let format = WAVFormat.recording(.s24, sampleRate: 8_000, channels: 1)
        let writer = try WAVWriter(file: file, format: format, options: Self.small)
        var appended: [UInt8] = []
        let error = #expect(throws: WAVWriteError.self) {
            for step in 0..<100 {
                let chunk = Self.pattern(frames: 50, blockAlign: 3, seed: step)
                try writer.append(chunk)
                appended += chunk
            }
        }
        #expect(error?.kind == .noSpace)
        try writer.finish()
        let wav = try Self.parse(file.bytes)
        #expect(wav.warnings.isEmpty, "\(wav.warnings)")
        #expect(wav.frameCount == Int64(writer.frames) && writer.frames > 0)
        #expect(file.bytes.count == Int(writer.fileLength) && file.used <= capacity)
        let stored = file.bytes[Int(wav.dataOffset)...]
        #expect(stored.elementsEqual(appended.prefix(stored.count)), "the file holds other bytes than were appended")
    }

    @Test func aPipeGetsAStreamingHeader() throws {
        let file = MemoryFile(seekable: false)
        let writer = try WAVWriter(file: file, format: .recording(.s16, sampleRate: 8_000, channels: 1))
        let data = Self.pattern(frames: 501, blockAlign: 2)
        try writer.append(data)
        try writer.addMarker()
        try writer.finish()
        #expect(Self.u32(file.bytes, 4) == 0xFFFF_FFFF)
        let dataOffset = file.bytes.count - data.count
        #expect(Self.u32(file.bytes, dataOffset - 4) == 0xFFFF_FFFF)
        #expect(Array(file.bytes[dataOffset...]) == data)
        #expect(try Self.parse(file.bytes).frameCount == 501)
    }

    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
    }
}

extension Array where Element == Int {
    /// The sizes repeated until they add up to at least `total`.
    func cycled(until total: Int) -> [Int] {
        var out: [Int] = []
        var sum = 0
        while sum < total {
            let next = self[out.count % count]
            out.append(next)
            sum += next
        }
        return out
    }
}
