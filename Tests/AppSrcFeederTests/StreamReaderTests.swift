// yt-gst — reading a WAV forward only, as from a pipe: the same parser over a StreamReader, with short reads.

import GstPlayer
import TestSupport
import Testing

@testable import AppSrcFeeder
@testable import WAV

@Suite("WAV from a stream")
struct StreamReaderTests {
    /// Files whose headers make the parser read back and ahead: metadata before the audio, a chunk larger than the
    /// kept bytes before it, an odd chunk without its pad byte, and chunks after the audio.
    static let layouts: [(name: String, builder: WAVBuilder)] = [
        (
            "plain",
            WAVBuilder(chunks: [.fmt(channels: 2, rate: 44_100, bits: 16), .data(frames: 5_000, blockAlign: 4)])
        ),
        (
            "LIST before and after",
            WAVBuilder(chunks: [
                .fmt(channels: 1, rate: 8_000, bits: 16),
                .raw("LIST", Array("INFOINAM".utf8) + [6, 0, 0, 0] + Array("title\0".utf8)),
                .data(frames: 3_001, blockAlign: 2), .raw("LIST", Array("INFOICMT".utf8) + [2, 0, 0, 0, 0x41, 0]),
            ])
        ),
        (
            "JUNK larger than the kept bytes",
            WAVBuilder(chunks: [
                .raw("JUNK", [UInt8](repeating: 7, count: 200_001)), .fmt(channels: 2, rate: 48_000, bits: 24),
                .data(frames: 4_000, blockAlign: 6),
            ])
        ),
        (
            "odd chunk without its pad byte",
            WAVBuilder(chunks: [
                .fmt(channels: 1, rate: 8_000, bits: 8), .raw("abcd", [1, 2, 3]).withoutPad,
                .data(frames: 777, blockAlign: 1),
            ])
        ),
    ]

    @Test(arguments: layouts.indices, [1, 7, 4093, 1 << 20])
    func streamParsesAsTheFileDoesAndReadsTheSameAudio(layout: Int, pieceSize: Int) throws {
        let bytes = Self.layouts[layout].builder.bytes()
        let asFile = try WAVFile(reader: MemoryReader(bytes))
        let stream = MemoryStream(bytes, pieceSize: pieceSize)
        let reader = StreamReader(stream)
        let file = try WAVFile(reader: reader)
        #expect(file.isStream && file.lengthIsKnown && !asFile.isStream)
        #expect(file.format == asFile.format && file.dataOffset == asFile.dataOffset)
        #expect(file.dataByteCount == asFile.dataByteCount && file.warnings == asFile.warnings)
        // Tags before the audio are read; a LIST after it is not (the file's own reader finds both).
        #expect(asFile.metadata.gstreamerTags.map(\.value).starts(with: file.metadata.gstreamerTags.map(\.value)))
        #expect(file.metadata.gstreamerTags.map(\.value) == (layout == 1 ? ["title"] : []))
        // Only what the walk needs: the header window past the data's start, never the audio to its end.
        #expect(stream.bytesRead <= Int(file.dataOffset) + 4096 || file.dataOffset > 4096)
        #expect(reader.position <= file.dataOffset + Int64(StreamReader.keptLimit))
        // Chunks after the audio stay unread and unlisted.
        #expect(file.chunks.last?.id == "data")
        #expect(
            try Self.audio(file, reader)
                == Array(bytes[Int(asFile.dataOffset)..<Int(asFile.dataOffset + asFile.dataByteCount)]))
    }

    /// Data sizes that stream writers leave (ffmpeg, wavenc, sox, arecord) mean "to the end of the stream".
    @Test(arguments: [0, 0xFFFF_FFFF, 0x7FFF_0000, 0x7FFF_F000, 0x8000_0000] as [UInt32])
    func streamingHeaderPlaysToTheEndOfTheStreamWithoutAWarning(declared: UInt32) throws {
        var builder = WAVBuilder(
            riffSize: declared == 0 ? 0 : declared &+ 36,
            chunks: [
                .fmt(channels: 2, rate: 44_100, bits: 16), .data(frames: 10_000, blockAlign: 4).declaring(declared),
            ])
        builder.trailer = [1, 2, 3]  // a partial frame where the stream stops
        let bytes = builder.bytes()
        let reader = StreamReader(MemoryStream(bytes, pieceSize: 1000))
        let file = try WAVFile(reader: reader)
        #expect(!file.lengthIsKnown && file.warnings.isEmpty)
        #expect(file.dataByteCount % 4 == 0 && file.dataByteCount > Int64(bytes.count))
        #expect(try Self.audio(file, reader) == Array(bytes[44...]))
    }

    /// The same header in a file keeps its meaning there: a size past the end is clamped, with a warning.
    @Test func theFileReaderStillClampsAPlaceholderSize() throws {
        let bytes = WAVBuilder(chunks: [
            .fmt(channels: 1, rate: 8_000, bits: 16), .data(frames: 100, blockAlign: 2).declaring(0x7FFF_F000),
        ]).bytes()
        let file = try WAVFile(reader: MemoryReader(bytes))
        #expect(file.lengthIsKnown && !file.isStream && file.dataByteCount == 200 && !file.warnings.isEmpty)
    }

    @Test func readingBackPastTheKeptBytesIsNotSeekable() throws {
        let bytes = [UInt8](repeating: 1, count: 300_000)
        let reader = StreamReader(MemoryStream(bytes, pieceSize: 999))
        var buffer = [UInt8](repeating: 0, count: 100_000)
        let got = try buffer.withUnsafeMutableBytes { (b) throws(WAVError) -> Int in
            try reader.read(at: 150_000, into: b)
        }
        #expect(got == 100_000 && reader.position == 250_000)
        let error = #expect(throws: WAVError.self) {
            try buffer.withUnsafeMutableBytes { (b) throws(WAVError) -> Int in try reader.read(at: 0, into: b) }
        }
        #expect(error?.kind == .notSeekable)
        // Forward is always fine, and the end of the stream reads short, then nothing.
        let tail = try buffer.withUnsafeMutableBytes { (b) throws(WAVError) -> Int in
            try reader.read(at: 250_000, into: b)
        }
        #expect(tail == 50_000)
    }

    @Test func cancelEndsTheStream() throws {
        let reader = StreamReader(MemoryStream([UInt8](repeating: 0, count: 10_000), pieceSize: 10))
        reader.cancel()
        #expect(try reader.bytes(at: 0, count: 100).isEmpty)
    }

    /// A stream's feeder refuses seeks (except the no-op one appsrc makes at the start), and plays through a real
    /// pipeline to the end of the stream even though the header declared gigabytes.
    @Test func streamFeederRefusesSeeksAndPlaysToTheEndOfTheStream() throws {
        Gst.initialize()
        let bytes = WAVBuilder(chunks: [
            .fmt(channels: 2, rate: 44_100, bits: 16), .data(frames: 30_000, blockAlign: 4).declaring(0xFFFF_FFFF),
        ]).bytes()
        let reader = StreamReader(MemoryStream(bytes, pieceSize: 3333))
        let feeder = try WAVFeeder(file: try WAVFile(reader: reader), reader: reader, name: "-", chunkMilliseconds: 100)
        #expect(feeder.seek(to: .zero))
        #expect(!feeder.seek(to: ClockTime(seconds: 0.5)))
        let collected = try Harness.collect(feeder, launch: "appsrc name=src ! appsink name=sink sync=false")
        #expect(collected.bytes == Array(bytes[44...]))
    }

    /// A pipe whose header gives no length, then a file, through one appsrc: the file is opened ahead at the end
    /// the header promised ("never") and must be moved to where the pipe really ended, so the timestamps run on
    /// without a gap or a jump.
    @Test func aFileAfterAStreamOfUnknownLengthContinuesItsTimestamps() throws {
        Gst.initialize()
        let format = WAVBuilder.Chunk.fmt(channels: 2, rate: 44_100, bits: 16)
        let pipe = WAVBuilder(chunks: [format, .data(frames: 22_050, blockAlign: 4).declaring(0xFFFF_FFFF)]).bytes()
        let file = WAVBuilder(chunks: [format, .data(frames: 11_025, blockAlign: 4)]).bytes()
        let chain = GaplessChain(order: PlayOrder(files: ["-", "file"]), settings: .init(chunkMilliseconds: 100)) {
            path, settings, window in
            let reader: any ByteReader =
                path == "-" ? StreamReader(MemoryStream(pipe, pieceSize: 1000)) : MemoryReader(file)
            return try WAVFeeder(
                file: try WAVFile(reader: reader), reader: reader, name: path,
                chunkMilliseconds: settings.chunkMilliseconds, buffers: settings.buffers, window: window)
        }
        #expect(chain.prepare(at: 0))
        let collected = try Harness.collect(chain, launch: "appsrc name=src ! appsink name=sink sync=false")
        #expect(collected.bytes == Array(pipe[44...]) + Array(file[44...]))
        let stamps = collected.timestamps.map { $0?.nanoseconds ?? .max }
        #expect(stamps.first == 0 && zip(stamps, stamps.dropFirst()).allSatisfy { $1 - $0 == 100_000_000 }, "\(stamps)")
    }

    /// The audio a feeder would read: from the data's start in 64 KiB reads until the stream (or data) ends.
    static func audio(_ file: WAVFile, _ reader: some ByteReader) throws -> [UInt8] {
        var out: [UInt8] = []
        var offset = file.dataOffset
        while offset < file.dataOffset + file.dataByteCount {
            let count = Int(min(65_536, file.dataOffset + file.dataByteCount - offset))
            let piece = try reader.bytes(at: offset, count: count)
            out += piece
            offset += Int64(piece.count)
            if piece.count < count { break }
        }
        return out
    }
}
