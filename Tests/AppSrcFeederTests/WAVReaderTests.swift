// yt-gst — unit tests of the WAV header reader on synthetic files.

import AppSrcFeeder
import Glibc
import Synchronization
import Testing
import WAV

@Suite("WAV reader")
struct WAVReaderTests {
    // MARK: - Sample formats

    @Test(arguments: [(8, 1), (16, 2), (24, 3), (32, 4)])
    func integerPCM(bits: Int, bytes: Int) throws {
        let file = try parse(
            WAVBuilder(chunks: [.fmt(channels: 2, rate: 44_100, bits: bits), .data(frames: 10, blockAlign: 2 * bytes)]))
        var expected = WAVFormat(
            formatTag: 1, encoding: .pcm, channels: 2, sampleRate: 44_100, bitsPerSample: bits, blockAlign: 2 * bytes)
        expected.averageBytesPerSecond = 44_100 * 2 * bytes
        #expect(file.format == expected)
        #expect(file.container == .riff)
        #expect(file.dataOffset == 44)
        #expect(file.frameCount == 10)
        #expect(file.durationSeconds == 10.0 / 44_100)
        #expect(file.warnings.isEmpty)
        #expect(file.chunks.map(\.id) == ["fmt ", "data"])
        try file.requirePlayableRaw()
    }

    @Test(arguments: [32, 64])
    func ieeeFloat(bits: Int) throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .fmt(tag: 3, channels: 1, rate: 48_000, bits: bits, extensionSize: 0), .fact(frames: 7),
                .data(frames: 7, blockAlign: bits / 8),
            ]))
        #expect(file.format.encoding == .float)
        #expect(file.format.bitsPerSample == bits && file.format.validBits == bits)
        #expect(file.frameCount == 7 && file.factFrames == 7)
        #expect(file.warnings.isEmpty)
    }

    @Test func extensiblePCMWithValidBitsAndMask() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .extensible(channels: 2, rate: 96_000, container: 32, validBits: 24, mask: 0x3),
                .data(frames: 5, blockAlign: 8),
            ]))
        #expect(file.format.formatTag == 0xFFFE)
        #expect(file.format.subFormatTag == 1)
        #expect(file.format.subFormatGUID == "00000001-0000-0010-8000-00aa00389b71")
        #expect(file.format.effectiveTag == 1)
        #expect(file.format.encoding == .pcm)
        #expect(file.format.bitsPerSample == 32 && file.format.validBits == 24)
        #expect(file.format.channelMask == 0x3)
        #expect(file.format.formatName == "PCM")
        #expect(file.frameCount == 5 && file.warnings.isEmpty)
    }

    @Test func extensibleFloatWithZeroValidBitsAndNoMask() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .extensible(channels: 1, rate: 44_100, container: 64, validBits: 0, mask: 0, subTag: 3),
                .data(frames: 3, blockAlign: 8),
            ]))
        #expect(file.format.encoding == .float)
        #expect(file.format.validBits == 64)
        #expect(file.format.channelMask == nil)
    }

    @Test func twelveBitsInSixteenKeepTheContainer() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .fmt(channels: 1, rate: 8_000, bits: 12, blockAlign: 2), .data(frames: 4, blockAlign: 2),
            ]))
        #expect(file.format.bitsPerSample == 16 && file.format.validBits == 12)
        #expect(file.frameCount == 4 && file.warnings.isEmpty)
    }

    @Test func blockAlignDecidesTheContainerWhenBitsDisagree() throws {
        // ruuda/hound's pcmwaveformat-24bit-4byte: format 1, 24 bits, 4-byte slots.
        let file = try parse(
            WAVBuilder(chunks: [
                .fmt(channels: 2, rate: 48_000, bits: 24, blockAlign: 8), .data(frames: 2, blockAlign: 8),
            ]))
        #expect(file.format.bitsPerSample == 32 && file.format.validBits == 24)
        #expect(file.frameCount == 2)
        #expect(file.warnings.count == 1)
    }

    @Test func fortyEightBitIntegersOnlyFromExtensible() throws {
        let extensible = try parse(
            WAVBuilder(chunks: [
                .extensible(channels: 1, rate: 44_100, container: 48, validBits: 48, mask: 4),
                .data(frames: 4, blockAlign: 6),
            ]))
        #expect(extensible.format.bitsPerSample == 48 && extensible.frameCount == 4)
        let plain = parseError(
            WAVBuilder(chunks: [
                .fmt(channels: 3, rate: 8_000, bits: 45, blockAlign: 18), .data(frames: 5, blockAlign: 18),
            ]))
        #expect(plain?.kind == .invalidFormat)
    }

    @Test(arguments: [
        (WAVBuilder.Chunk.fmt(channels: 0, rate: 44_100, bits: 16, blockAlign: 4), "channel count is 0"),
        (.fmt(channels: 2, rate: 0, bits: 16), "sample rate is 0"),
        (.fmt(channels: 2, rate: 44_100, bits: 16, blockAlign: 0), "block align is 0"),
        (.fmt(channels: 3, rate: 8_000, bits: 24, blockAlign: 4), "block align 4 is not a multiple of 3 channels"),
        (.fmt(channels: 3, rate: 8_000, bits: 36, blockAlign: 15), "40-bit integer samples"),
        (.fmt(tag: 3, channels: 1, rate: 8_000, bits: 16), "16-bit float samples"),
        (.fmt(tag: 3, channels: 1, rate: 8_000, bits: 32, blockAlign: 8), "float wBitsPerSample 32"),
        (.raw("fmt ", [1, 0, 1, 0, 0x44, 0xAC, 0, 0]), "fmt chunk is 8 bytes; it needs at least 16"),
        (.extensible(channels: 1, rate: 8_000, container: 16, validBits: 16, mask: 0, extensionSize: 2), "cbSize is 2"),
    ])
    func invalidFormatsNameTheField(fmt: WAVBuilder.Chunk, fragment: String) {
        let error = parseError(WAVBuilder(chunks: [fmt, .data(frames: 1, blockAlign: 4)]))
        #expect(error?.kind == .invalidFormat)
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "no error")")
    }

    // MARK: - Compressed codecs

    @Test func compressedHeaderParsesButIsNotPlayableRaw() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .fmt(
                    tag: 0x11, channels: 1, rate: 22_050, bits: 4, blockAlign: 512, extensionSize: 2, extra: [0xF9, 1]),
                .fact(frames: 1017), .data(bytes: 1024),
            ]))
        #expect(file.format.encoding == .compressed)
        #expect(file.format.blockAlign == 512 && file.format.bitsPerSample == 4)
        #expect(file.factFrames == 1017 && file.frameCount == 1017)
        #expect(file.dataByteCount == 1024)
        let error = #expect(throws: WAVError.self) { try file.requirePlayableRaw() }
        #expect(error?.kind == .unsupportedCodec)
        #expect(error?.formatTag == 0x0011)
        #expect(error?.message == "unsupported codec: format tag 0x0011 (IMA ADPCM)")
    }

    @Test func compressedWithoutFactEstimatesFramesFromTheByteRate() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .fmt(tag: 0x55, channels: 2, rate: 44_100, bits: 0, blockAlign: 1152, extensionSize: 0),
                .data(bytes: 2089),
            ]))
        // No fact chunk: the frames follow from nAvgBytesPerSec (here 44100 × 1152), as for any byte-stream codec.
        #expect(file.factFrames == nil && file.frameCount == 2089 * 44_100 / (44_100 * 1152))
        #expect(file.dataByteCount == 2089)  // packets are not frames: nothing is cut
        #expect(file.format.packetization == .stream)
    }

    @Test func aLawFramesFollowFromBytes() throws {
        let file = try parse(
            WAVBuilder(chunks: [.fmt(tag: 6, channels: 2, rate: 8_000, bits: 8, extensionSize: 0), .data(bytes: 41)]))
        #expect(file.frameCount == 20)
        #expect(file.dataByteCount == 40)
        #expect(throws: WAVError.self) { try file.requirePlayableRaw() }
    }

    @Test func extensibleSubFormatsAreChecked() throws {
        let adpcm = try parse(
            WAVBuilder(chunks: [
                .extensible(channels: 1, rate: 8_000, container: 16, validBits: 16, mask: 0, subTag: 2),
                .data(bytes: 4),
            ]))
        let adpcmError = #expect(throws: WAVError.self) { try adpcm.requirePlayableRaw() }
        #expect(adpcmError?.formatTag == 2)
        #expect(adpcmError?.message == "unsupported codec: extensible sub-format 0x0002 (MS ADPCM)")

        let foreign = try parse(
            WAVBuilder(chunks: [
                .extensible(channels: 1, rate: 8_000, container: 16, validBits: 16, mask: 0, guidTail: [UInt8](1...12)),
                .data(bytes: 4),
            ]))
        #expect(foreign.format.encoding == .compressed)
        #expect(foreign.format.effectiveTag == 0xFFFE)
        #expect(throws: WAVError.self) { try foreign.requirePlayableRaw() }
    }

    // MARK: - Chunk walking

    @Test func unknownChunksAnywhereAndPadBytes() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .raw("JUNK", [1, 2, 3]), .fmt(channels: 1, rate: 8_000, bits: 8), .raw("LIST", [4]),
                .data(frames: 3, blockAlign: 1), .raw("cue ", [5, 6, 7, 8, 9]), .raw("id3 ", []),
            ]))
        #expect(file.chunks.map(\.id) == ["JUNK", "fmt ", "LIST", "data", "cue ", "id3 "])
        #expect(file.chunks.map(\.offset) == [12, 24, 48, 58, 70, 84])
        #expect(file.chunks.map(\.size) == [3, 16, 1, 3, 5, 0])
        #expect(file.dataOffset == 66 && file.frameCount == 3)
        #expect(file.warnings.isEmpty)
    }

    @Test func missingPadByteAfterOddChunkIsTolerated() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .fmt(channels: 1, rate: 8_000, bits: 8, extra: [0]).withoutPad, .data(frames: 9, blockAlign: 1),
            ]))
        #expect(file.frameCount == 9)
        #expect(file.dataOffset == 45)
        #expect(file.warnings.count == 1)
        #expect(file.warnings.first?.contains("no pad byte") == true)
    }

    @Test func oddLastChunkWithoutPadIsFine() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .fmt(channels: 1, rate: 8_000, bits: 16), .data(frames: 2, blockAlign: 2), .raw("JUNK", [1]).withoutPad,
            ]))
        #expect(file.frameCount == 2 && file.warnings.isEmpty)
    }

    @Test func garbageAfterDataStopsTheWalkWithAWarning() throws {
        var builder = WAVBuilder(chunks: [.fmt(channels: 1, rate: 8_000, bits: 8), .data(frames: 4, blockAlign: 1)])
        builder.trailer = [0, 0xFF, 0x12, 0xAB, 9, 9, 9, 9, 1, 2]
        let file = try parse(builder)
        #expect(file.frameCount == 4)
        #expect(file.chunks.count == 2)
        #expect(file.warnings.count == 1)
        #expect(file.warnings.first?.contains("0x00ff12ab") == true)
    }

    @Test func truncatedChunkAfterDataIsListedAndWarned() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .fmt(channels: 1, rate: 8_000, bits: 8), .data(frames: 4, blockAlign: 1),
                .raw("smpl", [1, 2], size: 60),
            ]))
        #expect(file.frameCount == 4)
        #expect(file.chunks.last == WAVChunkInfo(id: "smpl", offset: 48, size: 60))
        #expect(file.warnings.count == 1)
    }

    @Test func nonPrintableIdsShowAsHex() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .raw([0, 0xFF, 0x12, 0xAB], [1, 2]), .fmt(channels: 1, rate: 8_000, bits: 8), .data(bytes: 1),
            ]))
        #expect(file.chunks.first?.id == "0x00ff12ab")
    }

    @Test func theWalkIsBounded() throws {
        var chunks: [WAVBuilder.Chunk] = [.fmt(channels: 1, rate: 8_000, bits: 8), .data(frames: 1, blockAlign: 1)]
        chunks += Array(repeating: .raw("JUNK", []), count: 20_000)
        let file = try parse(WAVBuilder(chunks: chunks))
        #expect(file.chunks.count == 10_000)
        #expect(file.frameCount == 1)
        #expect(file.warnings.contains { $0.contains("10000") })
    }

    @Test(arguments: [
        (WAVBuilder.Chunk.sampler(loops: 1, samplerData: 0, bodySize: 60), false),
        (.sampler(loops: 0, samplerData: 4, bodySize: 48), false),
        (.raw("smpl", []), true),
        (.sampler(loops: 2, samplerData: 0, bodySize: 60), true),
        (.sampler(loops: 1, samplerData: 8, bodySize: 64), true),
    ])
    func brokenSamplerChunksAreWarnedAbout(smpl: WAVBuilder.Chunk, warned: Bool) throws {
        let file = try parse(
            WAVBuilder(chunks: [.fmt(channels: 1, rate: 8_000, bits: 8), smpl, .data(frames: 6, blockAlign: 1)]))
        #expect(file.frameCount == 6)
        #expect(file.warnings.count == (warned ? 1 : 0), "\(file.warnings)")
    }

    @Test func secondFormatAndDataChunksAreIgnored() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .fmt(channels: 1, rate: 8_000, bits: 8), .data(frames: 2, blockAlign: 1),
                .fmt(channels: 2, rate: 44_100, bits: 16), .data(frames: 9, blockAlign: 1),
            ]))
        #expect(file.format.channels == 1 && file.frameCount == 2)
        #expect(file.warnings.count == 2)
    }

    // MARK: - Containers

    @Test func rifxIsBigEndianThroughout() throws {
        let file = try parse(
            WAVBuilder(
                magic: "RIFX", order: .big,
                chunks: [.fmt(channels: 2, rate: 44_100, bits: 16), .data(frames: 6, blockAlign: 4)]))
        #expect(file.container == .rifx)
        #expect(file.format.byteOrder == .big)
        #expect(file.format.sampleRate == 44_100 && file.format.channels == 2)
        #expect(file.frameCount == 6)
    }

    @Test func rifxExtensibleReadsTheGUIDInFileOrder() throws {
        let file = try parse(
            WAVBuilder(
                magic: "RIFX", order: .big,
                chunks: [
                    .extensible(channels: 1, rate: 44_100, container: 32, validBits: 32, mask: 4),
                    .data(frames: 3, blockAlign: 4),
                ]))
        #expect(file.format.encoding == .pcm)
        #expect(file.format.subFormatTag == 1)
    }

    @Test(arguments: ["RF64", "BW64"])
    func rf64TakesSizesFromDS64(magic: String) throws {
        let data = WAVBuilder.Chunk.data(frames: 25, blockAlign: 4)
        let file = try parse(
            WAVBuilder(
                magic: magic, riffSize: 0xFFFF_FFFF,
                chunks: [
                    .ds64(riff: 200, data: 100, samples: 25), .fmt(channels: 2, rate: 8_000, bits: 16),
                    data.declaring(0xFFFF_FFFF),
                ]))
        #expect(file.container == (magic == "RF64" ? .rf64 : .bw64))
        #expect(file.frameCount == 25)
        #expect(file.chunks.map(\.id) == ["ds64", "fmt ", "data"])
        #expect(file.chunks.last?.size == 100)
        #expect(file.warnings.isEmpty)
    }

    @Test func rf64WithoutDS64UsesThe32BitSizes() throws {
        let file = try parse(
            WAVBuilder(
                magic: "RF64", chunks: [.fmt(channels: 1, rate: 8_000, bits: 16), .data(frames: 5, blockAlign: 2)]))
        #expect(file.frameCount == 5)
        #expect(file.warnings.count == 1)
    }

    // MARK: - Data sizes

    @Test func dataSizePastTheEndIsClamped() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .fmt(channels: 1, rate: 8_000, bits: 16), .data(frames: 100, blockAlign: 2).declaring(1_000_000),
            ]))
        #expect(file.dataByteCount == 200 && file.frameCount == 100)
        #expect(file.warnings == ["data chunk declares 1000000 bytes but only 200 are in the file; playing 200"])
    }

    @Test(arguments: [UInt32(0), 36, 0xFFFF_FFFF])
    func unfinishedRecordingPlaysToTheEnd(riffSize: UInt32) throws {
        let file = try parse(
            WAVBuilder(
                riffSize: riffSize,
                chunks: [.fmt(channels: 2, rate: 44_100, bits: 16), .data(frames: 50, blockAlign: 4).declaring(0)]))
        #expect(file.frameCount == 50)
        #expect(file.warnings.count == 1)
        #expect(file.warnings.first?.contains("to the end of the file") == true)
    }

    @Test func unknownDataSizePlaysToTheEnd() throws {
        let file = try parse(
            WAVBuilder(chunks: [
                .fmt(channels: 2, rate: 44_100, bits: 16), .data(frames: 30, blockAlign: 4).declaring(0xFFFF_FFFF),
            ]))
        #expect(file.frameCount == 30)
        #expect(file.warnings.count == 1)
    }

    @Test func emptyDataChunkFollowedByChunksHasNoFrames() throws {
        // music-metadata issue-1163.bwf: the chunks after an empty data chunk are not audio.
        let file = try parse(
            WAVBuilder(
                riffSize: 0,
                chunks: [
                    .fmt(channels: 2, rate: 48_000, bits: 24), .data(bytes: 0),
                    .raw("regn", [UInt8](repeating: 1, count: 92)),
                    .raw("ID3 ", [UInt8](repeating: 2, count: 600)),
                ]))
        #expect(file.frameCount == 0)
        #expect(file.chunks.map(\.id) == ["fmt ", "data", "regn", "ID3 "])
        #expect(file.warnings == ["the data chunk holds no audio"])
    }

    @Test func emptyDataChunkInAFinishedFileHasNoFrames() throws {
        let file = try parse(WAVBuilder(chunks: [.fmt(channels: 1, rate: 44_100, bits: 8), .data(bytes: 0)]))
        #expect(file.frameCount == 0 && file.warnings == ["the data chunk holds no audio"])
    }

    @Test func trailingPartialFrameIsDropped() throws {
        let file = try parse(WAVBuilder(chunks: [.fmt(channels: 2, rate: 8_000, bits: 24), .data(bytes: 6 * 7 + 4)]))
        #expect(file.frameCount == 7 && file.dataByteCount == 42)
        #expect(file.warnings == ["dropped a trailing partial frame (4 of 6 bytes)"])
    }

    // MARK: - Broken files

    @Test func missingFormat() {
        #expect(parseError(WAVBuilder(chunks: [.data(bytes: 4)]))?.kind == .missingFormat)
        #expect(parseError(WAVBuilder(chunks: []))?.kind == .missingFormat)
    }

    @Test func formatAfterDataIsMissingFormat() {
        let error = parseError(WAVBuilder(chunks: [.data(bytes: 4), .fmt(channels: 1, rate: 8_000, bits: 8)]))
        #expect(error?.kind == .missingFormat)
    }

    @Test func missingData() {
        let error = parseError(WAVBuilder(chunks: [.fmt(channels: 1, rate: 8_000, bits: 8), .raw("LIST", [1, 2])]))
        #expect(error?.kind == .missingData)
        #expect(error?.message == "no data chunk")
    }

    @Test func missingDataExplainsWhereTheWalkStopped() {
        let error = parseError(
            WAVBuilder(chunks: [.fmt(channels: 1, rate: 8_000, bits: 8), .raw("XXXX", [1, 2], size: 999_999)]))
        #expect(error?.kind == .missingData)
        #expect(error?.message.contains("\"XXXX\" at offset 36 declares 999999 bytes") == true)
    }

    @Test func notAWAV() {
        let id3 = parseError(bytes: Array("ID3\u{3}\0\0\0\0\0\0\0\0\0\0".utf8))
        #expect(id3?.kind == .notWAV)
        #expect(id3?.message == "not a WAV file (starts with \"ID3\\u{3}\")")
        let avi = parseError(bytes: Array("RIFF\u{4}\0\0\0AVI ".utf8))
        #expect(avi?.kind == .notWAV)
        #expect(avi?.message == "RIFF file of form type \"AVI \", not WAVE")
    }

    @Test func emptyFile() {
        let error = parseError(bytes: [])
        #expect(error?.kind == .notWAV)
        #expect(error?.message == "not a WAV file (the file is empty)")
    }

    @Test(arguments: [Array("RI".utf8), Array("RIFF".utf8), Array("RIFF\u{0}\u{0}\u{0}\u{0}WA".utf8)])
    func truncatedHeader(bytes: [UInt8]) {
        #expect(parseError(bytes: bytes)?.kind == .truncatedHeader)
    }

    @Test func formatChunkCutOffIsTruncated() {
        var bytes = WAVBuilder(chunks: [.fmt(channels: 1, rate: 8_000, bits: 8)]).bytes()
        bytes.removeLast(6)
        #expect(parseError(bytes: bytes)?.kind == .truncatedHeader)
    }

    /// A 2 or 4 GiB fmt chunk with the data chunk after it (a sparse file, 8 KB on disk): no writer makes a fmt chunk
    /// larger than WAVEFORMATEX with a 65535-byte extension, so it is refused, and without reading what it declares.
    @Test(arguments: [0x7FFF_FFF0, 0xFFFF_FFF0, 18 + 65_536] as [UInt32])
    func hugeFormatChunkIsRefusedWithoutReadingIt(fmtSize: UInt32) throws {
        var head = WAVBuilder(chunks: [.fmt(channels: 2, rate: 8_000, bits: 16)]).bytes()
        head.replaceSubrange(16..<20, with: WAVBuilder.field(fmtSize, width: 4, order: .little))
        let dataAt = 20 + Int64(fmtSize) + Int64(fmtSize & 1)
        let tail = WAVBuilder.Chunk.data(frames: 2_000, blockAlign: 4).encoded(order: .little)
        let reader = CountingByteReader(
            VirtualFileReader(size: dataAt + Int64(tail.count), parts: [(0, head), (dataAt, tail)]))
        let error = #expect(throws: WAVError.self) { try WAVFile(reader: reader) }
        #expect(error?.kind == .invalidFormat)
        #expect(
            error?.message.hasPrefix("fmt chunk declares \(fmtSize) bytes; a fmt chunk holds at most 65553") == true)
        #expect(reader.bytesRequested < 80_000)
    }

    /// The largest fmt chunk a writer can make (cbSize 65535) is read, and the walk goes on after it.
    @Test func largestPossibleFormatChunkIsRead() throws {
        let extra = [UInt8](repeating: 0x5A, count: 65_535)
        let file = try parse(
            WAVBuilder(chunks: [
                .fmt(
                    tag: 0x0055, channels: 2, rate: 44_100, bits: 0, blockAlign: 1, extensionSize: 65_535, extra: extra),
                .data(bytes: 1_000),
            ]))
        #expect(file.chunks.map(\.size) == [65_553, 1_000])
        #expect(file.dataByteCount == 1_000)
    }

    /// sox and wavparse read a data chunk behind 200,000 empty chunks: so does the walk, listing only the first
    /// `maxListedChunks` and the data chunk.
    @Test func manyEmptyChunksBeforeTheDataAreWalked() throws {
        let bytes = emptyChunksBeforeTheData(
            200_000, format: .fmt(channels: 2, rate: 8_000, bits: 16), dataBytes: 8_000)
        for reader in [MemoryReader(bytes), StreamReader(MemoryStream(bytes, pieceSize: 4093))] as [any ByteReader] {
            let file = try WAVFile(reader: reader)
            #expect(file.dataOffset == 12 + 24 + 200_000 * 8 + 8)
            #expect(file.frameCount == 2_000)
            #expect(file.chunks.count == 10_001 && file.chunks.last?.id == "data")
            #expect(file.warnings == ["listing only the first 10000 chunks and the data chunk"])
        }
    }

    /// Past `maxChunks` chunks without audio the walk stops, and the error says so (not just "no data chunk").
    @Test func theWalkBeforeTheDataIsBoundedAndSaysSo() throws {
        let error = parseError(
            bytes: emptyChunksBeforeTheData(1_000_000, format: .fmt(channels: 1, rate: 8_000, bits: 8), dataBytes: 1))
        #expect(error?.kind == .missingData)
        #expect(
            error?.message == "no data chunk (stopped reading chunks after 1000000, the limit before the data chunk)")
    }

    // MARK: - The byte seam

    @Test func shortReadsGiveTheSameResult() throws {
        let bytes = WAVBuilder(chunks: [
            .raw("JUNK", [1, 2, 3]), .fmt(channels: 2, rate: 44_100, bits: 16), .data(frames: 40, blockAlign: 4),
            .raw("LIST", [UInt8](repeating: 7, count: 30)),
        ]).bytes()
        let whole = try WAVFile(reader: MemoryReader(bytes))
        let dribbled = try WAVFile(reader: DribblingReader(MemoryReader(bytes), maxPerRead: 3))
        #expect(dribbled.format == whole.format)
        #expect(dribbled.chunks == whole.chunks)
        #expect(dribbled.dataByteCount == whole.dataByteCount && dribbled.dataOffset == whole.dataOffset)
    }

    @Test func ioErrorsPropagate() {
        let bytes = WAVBuilder(chunks: [.fmt(channels: 1, rate: 8_000, bits: 8), .data(bytes: 10)]).bytes()
        let error = #expect(throws: WAVError.self) { try WAVFile(reader: EIOReader(size: Int64(bytes.count))) }
        #expect(error?.kind == .io)
        #expect(error?.message == "Input/output error")
    }

    @Test func fileReaderOpensAndReads() throws {
        let bytes = WAVBuilder(chunks: [.fmt(channels: 1, rate: 8_000, bits: 16), .data(frames: 3, blockAlign: 2)])
            .bytes()
        let temporary = try TemporaryWAVFile(bytes)
        defer { temporary.remove() }
        let path = temporary.path
        let (file, reader) = try WAVFile.open(path: path)
        #expect((reader as? FileReader)?.path == path && reader.size == Int64(bytes.count))
        #expect(file.frameCount == 3 && file.fileSize == Int64(bytes.count))
        var sample = [UInt8](repeating: 0, count: 10)
        let got = try sample.withUnsafeMutableBytes { (buffer) throws(WAVError) -> Int in
            try reader.read(at: file.dataOffset, into: buffer)
        }
        #expect(got == 6)
        #expect(Array(sample[0..<6]) == Array(bytes[44..<50]))
    }

    @Test func fileReaderErrors() {
        let missing = #expect(throws: WAVError.self) { try WAVFile.open(path: "/nonexistent/yt-gst/none.wav") }
        #expect(missing?.kind == .cannotOpen)
        #expect(missing?.message == "No such file or directory")
        let directory = #expect(throws: WAVError.self) { try FileReader(path: "/tmp") }
        #expect(directory?.kind == .cannotOpen)
        #expect(directory?.message.contains("directory") == true)
    }

    // MARK: - Helpers

    private func parse(_ builder: WAVBuilder) throws -> WAVFile {
        try WAVFile(reader: MemoryReader(builder.bytes()))
    }

    /// A file of `format`, `count` empty "junk" chunks, then a data chunk of `dataBytes`.
    private func emptyChunksBeforeTheData(_ count: Int, format: WAVBuilder.Chunk, dataBytes: Int) -> [UInt8] {
        let head = WAVBuilder(chunks: [format]).bytes()
        var chunks = [UInt8](repeating: 0, count: count * 8)
        chunks.withUnsafeMutableBytes { buffer in
            for offset in stride(from: 0, to: buffer.count, by: 8) {
                buffer.storeBytes(of: 0x6B6E_756A, toByteOffset: offset, as: UInt32.self)
            }
        }
        return head + chunks + WAVBuilder.Chunk.data(bytes: dataBytes).encoded(order: .little)
    }

    private func parseError(_ builder: WAVBuilder) -> WAVError? {
        parseError(bytes: builder.bytes())
    }

    private func parseError(bytes: [UInt8]) -> WAVError? {
        do {
            _ = try WAVFile(reader: MemoryReader(bytes))
            return nil
        } catch {
            return error
        }
    }
}

// MARK: - Synthetic WAV files

/// Builds WAV bytes chunk by chunk, with every size and field overridable to make broken files on purpose.
struct WAVBuilder: Sendable {
    var magic = "RIFF"
    /// The RIFF size field; nil writes the true size.
    var riffSize: UInt32?
    var order = ByteOrder.little
    var chunks: [Chunk]
    /// Bytes appended after the last chunk.
    var trailer: [UInt8] = []

    init(magic: String = "RIFF", riffSize: UInt32? = nil, order: ByteOrder = .little, chunks: [Chunk]) {
        self.magic = magic
        self.riffSize = riffSize
        self.order = order
        self.chunks = chunks
    }

    func bytes() -> [UInt8] {
        let body = Array("WAVE".utf8) + chunks.flatMap { $0.encoded(order: order) } + trailer
        let size = riffSize ?? UInt32(truncatingIfNeeded: body.count)
        return Array(magic.utf8) + Self.field(size, width: 4, order: order) + body
    }

    static func field(_ value: some BinaryInteger, width: Int, order: ByteOrder) -> [UInt8] {
        let little = (0..<width).map {
            UInt8(truncatingIfNeeded: UInt64(truncatingIfNeeded: value) >> (8 * UInt64($0)))
        }
        return order == .little ? little : little.reversed()
    }

    struct Chunk: Sendable {
        var id: [UInt8]
        /// The body, which depends on the byte order for header chunks.
        var body: @Sendable (ByteOrder) -> [UInt8]
        /// The declared size; nil writes the true size.
        var size: UInt32?
        var pad = true

        func encoded(order: ByteOrder) -> [UInt8] {
            let content = body(order)
            let declared = size ?? UInt32(content.count)
            let padding: [UInt8] = pad && content.count % 2 == 1 ? [0] : []
            return id + WAVBuilder.field(declared, width: 4, order: order) + content + padding
        }

        /// The same chunk without the pad byte an odd size calls for.
        var withoutPad: Chunk {
            var copy = self
            copy.pad = false
            return copy
        }

        /// The same chunk declaring `size` whatever its body holds.
        func declaring(_ size: UInt32) -> Chunk {
            var copy = self
            copy.size = size
            return copy
        }

        static func raw(_ id: String, _ body: [UInt8], size: UInt32? = nil) -> Chunk {
            Chunk(id: Array(id.utf8), body: { _ in body }, size: size)
        }

        static func raw(_ id: [UInt8], _ body: [UInt8]) -> Chunk {
            Chunk(id: id, body: { _ in body }, size: nil)
        }

        /// WAVEFORMAT (16 bytes), or WAVEFORMATEX when `extensionSize` is given; `extra` follows.
        static func fmt(
            tag: UInt16 = 1, channels: Int, rate: Int, bits: Int, blockAlign: Int? = nil, extensionSize: Int? = nil,
            extra: [UInt8] = []
        ) -> Chunk {
            let align = blockAlign ?? channels * ((bits + 7) / 8)
            return Chunk(
                id: Array("fmt ".utf8),
                body: { order in
                    var body = field(tag, width: 2, order: order) + field(channels, width: 2, order: order)
                    body += field(rate, width: 4, order: order) + field(rate * align, width: 4, order: order)
                    body += field(align, width: 2, order: order) + field(bits, width: 2, order: order)
                    if let extensionSize { body += field(extensionSize, width: 2, order: order) }
                    return body + extra
                }, size: nil)
        }

        /// WAVEFORMATEXTENSIBLE with a KSDATAFORMAT sub-format GUID (or another GUID tail).
        static func extensible(
            channels: Int, rate: Int, container: Int, validBits: Int, mask: UInt32, subTag: UInt16 = 1,
            guidTail: [UInt8] = [0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71], extensionSize: Int = 22
        ) -> Chunk {
            let align = channels * container / 8
            return Chunk(
                id: Array("fmt ".utf8),
                body: { order in
                    var body = field(0xFFFE, width: 2, order: order) + field(channels, width: 2, order: order)
                    body += field(rate, width: 4, order: order) + field(rate * align, width: 4, order: order)
                    body += field(align, width: 2, order: order) + field(container, width: 2, order: order)
                    body += field(extensionSize, width: 2, order: order) + field(validBits, width: 2, order: order)
                    body += field(mask, width: 4, order: order) + field(subTag, width: 4, order: order)
                    // Data2 and Data3 are integers in the file's byte order; the last eight bytes are as stored.
                    let data2and3 =
                        order == .little ? guidTail[0..<4] : [guidTail[1], guidTail[0], guidTail[3], guidTail[2]]
                    return body + data2and3 + guidTail[4...]
                }, size: nil)
        }

        static func fact(frames: UInt32) -> Chunk {
            Chunk(id: Array("fact".utf8), body: { field(frames, width: 4, order: $0) }, size: nil)
        }

        static func ds64(riff: UInt64, data: UInt64, samples: UInt64) -> Chunk {
            Chunk(
                id: Array("ds64".utf8),
                body: {
                    field(riff, width: 8, order: $0) + field(data, width: 8, order: $0)
                        + field(samples, width: 8, order: $0)
                        + field(0, width: 4, order: $0)
                }, size: nil)
        }

        /// A smpl chunk of `bodySize` bytes whose header declares `loops` loops and `samplerData` extra bytes.
        static func sampler(loops: UInt32, samplerData: UInt32, bodySize: Int) -> Chunk {
            Chunk(
                id: Array("smpl".utf8),
                body: { order in
                    let header =
                        [UInt8](repeating: 0, count: 28) + field(loops, width: 4, order: order)
                        + field(samplerData, width: 4, order: order)
                    return header + [UInt8](repeating: 0, count: bodySize - 36)
                }, size: nil)
        }

        static func data(frames: Int, blockAlign: Int) -> Chunk { data(bytes: frames * blockAlign) }

        /// A data chunk of `bytes` bytes of a pattern that never looks like a chunk id.
        static func data(bytes: Int) -> Chunk {
            Chunk(
                id: Array("data".utf8), body: { _ in (0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 37) } },
                size: nil)
        }
    }
}

/// Bytes in memory at a few offsets of a large virtual file, zeros elsewhere: a multi-gigabyte file without the disk.
private struct VirtualFileReader: ByteReader {
    let size: Int64
    let parts: [(offset: Int64, bytes: [UInt8])]

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        let count = Int(max(0, min(Int64(buffer.count), size - offset)))
        for index in 0..<count { buffer[index] = 0 }
        for part in parts {
            let start = max(offset, part.offset)
            let end = min(offset + Int64(count), part.offset + Int64(part.bytes.count))
            guard start < end else { continue }
            for position in start..<end { buffer[Int(position - offset)] = part.bytes[Int(position - part.offset)] }
        }
        return count
    }
}

/// Counts the bytes asked for, to prove that a declared size does not drive a read.
private final class CountingByteReader: ByteReader {
    private let inner: any ByteReader
    private let requested = Mutex(0)

    init(_ inner: any ByteReader) { self.inner = inner }

    var size: Int64 { inner.size }
    var bytesRequested: Int { requested.withLock { $0 } }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        requested.withLock { $0 += buffer.count }
        return try inner.read(at: offset, into: buffer)
    }
}

/// Returns at most `maxPerRead` bytes per call, like a pipe or a network file system would.
private struct DribblingReader: ByteReader {
    let inner: MemoryReader
    let maxPerRead: Int

    init(_ inner: MemoryReader, maxPerRead: Int) {
        self.inner = inner
        self.maxPerRead = maxPerRead
    }

    var size: Int64 { inner.size }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        try inner.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(maxPerRead)))
    }
}

/// Fails every read with EIO.
private struct EIOReader: ByteReader {
    let size: Int64

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        throw WAVError(.io, "Input/output error")
    }
}

/// A file in /tmp holding `bytes`, removed by `remove()`.
private struct TemporaryWAVFile {
    let path: String

    init(_ bytes: [UInt8]) throws {
        var template = Array("/tmp/yt-gst-wavreader-XXXXXX.wav".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        try #require(fd >= 0)
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        try #require(written == bytes.count)
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func remove() { unlink(path) }
}
