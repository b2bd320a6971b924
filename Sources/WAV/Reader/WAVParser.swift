// yt-gst — the chunk walk that turns a WAV's headers into a WAVFile.

/// Walks the top-level chunks of a RIFF/RIFX/RF64/BW64 WAVE file once, front to back.
///
/// The walk goes on to the end of the file so `info` can list every chunk, but nothing after the data chunk can
/// fail the file: garbage or truncation there ends the walk with a warning. No declared size ever drives an
/// allocation; the walk is bounded to `maxChunks` chunks, and lists at most `maxListedChunks`. On a stream (a pipe,
/// `ByteReader.isSeekable` false) the walk ends at the data chunk, whose audio is read next, so every read goes
/// forward and nothing after it is read.
struct WAVParser {
    /// Chunks walked looking for the audio: the data chunk behind 200,000 empty chunks is found (sox and wavparse
    /// read such files), and a file of nothing but empty chunk headers (8 MB of them) is refused in 0.3 s.
    static let maxChunks = 1_000_000
    /// Chunks listed for `info`, and walked after the data chunk (nothing there is needed to play): memory stays
    /// bounded whatever the count.
    static let maxListedChunks = 10_000
    /// Chunks in a row whose ids are not text, after which the walk decides it is reading garbage, not chunks.
    static let maxGarbageChunks = 16

    private var reader: HeaderReader
    private var fileSize: Int64 { reader.fileSize }
    private var container = WAVContainer.riff
    private var byteOrder = ByteOrder.little
    private var riffSize: UInt64 = 0
    private var ds64: DS64?
    private var format: WAVFormat?
    private var dataOffset: Int64?
    private var dataByteCount: Int64 = 0
    private var factFrames: Int64?
    private var chunks: [WAVChunkInfo] = []
    /// Chunks walked, listed or not.
    private var chunksWalked = 0
    private var metadata = WAVMetadata()
    private var warnings: [String] = []
    /// Why the walk ended before the end of the file, to explain a missing fmt or data chunk.
    private var stopReason: String?
    /// Reading a stream: forward only, of unknown size.
    private let isStream: Bool
    /// False when a stream's header gives no real data size: the audio then runs to the end of the stream.
    private var lengthIsKnown = true

    /// Data sizes that stream writers put in a header they cannot come back to fix: "until the end of the stream".
    /// Besides 0 and 0xFFFFFFFF (ffmpeg): GStreamer's wavenc, sox and arecord (see FIELD-NOTES).
    static let streamingDataSizes: Set<UInt32> = [0, 0xFFFF_FFFF, 0x7FFF_0000, 0x7FFF_F000, 0x8000_0000]

    init(reader: some ByteReader) {
        self.reader = HeaderReader(reader: reader, fileSize: reader.size)
        self.isStream = !reader.isSeekable
    }

    /// Reads the headers and describes the file.
    consuming func parse() throws(WAVError) -> WAVFile {
        try readRIFFHeader()
        try walkChunks()
        guard let format else {
            throw WAVError(.missingFormat, "no fmt chunk" + (stopReason.map { " (\($0))" } ?? ""))
        }
        guard let dataOffset else {
            throw WAVError(.missingData, "no data chunk" + (stopReason.map { " (\($0))" } ?? ""))
        }
        if isRF64 && ds64 == nil {
            warnings.insert("\(container.rawValue) file has no ds64 chunk; using its 32-bit sizes", at: 0)
        }
        if !lengthIsKnown {
            // Whole units, as far as numbers go: the feeder stops where the stream does.
            dataByteCount -= dataByteCount % Int64(format.blockAlign)
        } else if WAVFile.hasFixedFrames(format) {
            let partial = dataByteCount % Int64(format.blockAlign)
            if partial != 0 {
                warnings.append("dropped a trailing partial frame (\(partial) of \(format.blockAlign) bytes)")
                dataByteCount -= partial
            }
        } else if case .blocks = format.packetization, dataByteCount % Int64(format.blockAlign) != 0 {
            let partial = dataByteCount % Int64(format.blockAlign)
            warnings.append("dropped a trailing partial block (\(partial) of \(format.blockAlign) bytes)")
            dataByteCount -= partial
        }
        if dataByteCount == 0, !warnings.contains(where: { $0.hasPrefix("data chunk") }) {
            warnings.append("the data chunk holds no audio")
        }
        return WAVFile(
            container: container, format: format, dataOffset: dataOffset, dataByteCount: dataByteCount,
            factFrames: factFrames, chunks: chunks, warnings: warnings, fileSize: fileSize, metadata: metadata,
            isStream: isStream, lengthIsKnown: lengthIsKnown)
    }

    /// The 12-byte RIFF header: container magic, RIFF size, form type WAVE.
    private mutating func readRIFFHeader() throws(WAVError) {
        let head = try reader.bytes(at: 0, count: 12)
        guard !head.isEmpty else { throw WAVError(.notWAV, "not a WAV file (the file is empty)") }
        if head.count >= 4, FourCC(head) == FourCC("riff") {
            try readWave64Header()
            return
        }
        let magics: [(FourCC, WAVContainer)] = [(.riff, .riff), (.rifx, .rifx), (.rf64, .rf64), (.bw64, .bw64)]
        let magicBytes = Array(head.prefix(4))
        guard head.count >= 4 else {
            let isStartOfMagic = magics.contains { Array($0.1.rawValue.utf8.prefix(head.count)) == magicBytes }
            guard isStartOfMagic else {
                throw WAVError(.notWAV, "not a WAV file (starts with \(Hex.quoted(magicBytes)))")
            }
            throw WAVError(.truncatedHeader, "the file is only \(head.count) bytes; a WAV header needs 12")
        }
        guard let match = magics.first(where: { $0.0 == FourCC(head) }) else {
            throw WAVError(.notWAV, "not a WAV file (starts with \(Hex.quoted(magicBytes)))")
        }
        container = match.1
        guard head.count == 12 else {
            throw WAVError(
                .truncatedHeader, "the file is only \(head.count) bytes; the \(container.rawValue) header needs 12")
        }
        guard FourCC(head, at: 8) == .wave else {
            throw WAVError(
                .notWAV, "\(container.rawValue) file of form type \(Hex.quoted(Array(head[8..<12]))), not WAVE")
        }
        byteOrder = container == .rifx ? .big : .little
        riffSize = UInt64(byteOrder.uint32(head, at: 4))
    }

    private var isRF64: Bool { container == .rf64 || container == .bw64 }
    private var isWave64: Bool { container == .wave64 }

    /// The 40-byte Sony Wave64 header: the `riff` GUID, a 64-bit size, the `wave` GUID.
    private mutating func readWave64Header() throws(WAVError) {
        let head = try reader.bytes(at: 0, count: 40)
        guard head.count >= 16, Wave64.fourCC(head, at: 0) == FourCC("riff") else {
            throw WAVError(.notWAV, "not a WAV file (starts with \(Hex.quoted(Array(head.prefix(4)))))")
        }
        container = .wave64
        guard head.count == 40 else {
            throw WAVError(.truncatedHeader, "the file is only \(head.count) bytes; the Wave64 header needs 40")
        }
        guard Wave64.fourCC(head, at: 24) == FourCC("wave") else {
            throw WAVError(.notWAV, "Wave64 file of form type {\(Wave64.guidText(head, at: 24))}, not WAVE")
        }
        byteOrder = .little
        riffSize = byteOrder.uint64(head, at: 16)
    }

    /// Visits every top-level chunk from the end of the file header to the end of the file.
    private mutating func walkChunks() throws(WAVError) {
        var offset: Int64 = isWave64 ? 40 : 12
        var previous: WAVChunkInfo?
        var garbage = 0
        while offset < fileSize {
            guard chunksWalked < (dataOffset == nil ? Self.maxChunks : Self.maxListedChunks) else {
                let limit = dataOffset == nil ? ", the limit before the data chunk" : ""
                note("stopped reading chunks after \(chunksWalked)\(limit)", warn: dataOffset != nil)
                break
            }
            guard var header = try chunkHeader(at: offset) else { break }
            try skipMissingPadByte(after: previous, offset: &offset, header: &header)
            let id = chunkID(header)
            garbage = id.isPrintable ? 0 : garbage + 1
            guard !isPastTheChunks(id: id, at: offset, garbage: garbage) else { break }

            let body = offset + chunkHeaderSize
            let available = UInt64(fileSize - body)
            if isWave64, byteOrder.uint64(header, at: 16) < 24 {
                noteUndersizedWave64Chunk(header, at: offset)
                break
            }
            let size32 = isWave64 ? 0 : byteOrder.uint32(header, at: 4)
            if id == .ds64, isRF64, ds64 == nil, dataOffset == nil {
                try readDS64(at: body, size: UInt64(size32), available: available)
            }
            let size = chunkSize(header, id: id)
            let chunk = WAVChunkInfo(id: isWave64 ? Wave64.display(header) : id.display, offset: offset, size: size)
            list(chunk, isAudio: id == .data && dataOffset == nil)
            guard try readChunkBody(chunk, id: id, at: body, size32: size32, available: available) else { break }
            guard size <= available else {
                note(
                    "chunk \"\(chunk.id)\" at offset \(offset) declares \(size) bytes but only \(available) are left"
                        + " in the file", warn: dataOffset != nil)
                break
            }
            offset = body + Int64(size) + (isWave64 ? Int64((8 - (24 + size) % 8) % 8) : Int64(size & 1))
            previous = chunk
        }
    }

    /// Counts a chunk walked and lists it while the list has room; the data chunk is always listed.
    private mutating func list(_ chunk: WAVChunkInfo, isAudio: Bool) {
        chunksWalked += 1
        guard chunks.count < Self.maxListedChunks || isAudio else {
            if chunksWalked == chunks.count + 1 {
                warnings.append("listing only the first \(Self.maxListedChunks) chunks and the data chunk")
            }
            return
        }
        chunks.append(chunk)
    }

    /// Bytes of a chunk header: id and 32-bit size, or Wave64's GUID and 64-bit size.
    private var chunkHeaderSize: Int64 { isWave64 ? 24 : 8 }

    /// The header of the chunk at `offset`, or nil where the file ends inside it, which ends the walk: before the
    /// audio that explains the error to come, after it the bytes are only stray.
    private mutating func chunkHeader(at offset: Int64) throws(WAVError) -> [UInt8]? {
        let header =
            fileSize - offset >= chunkHeaderSize ? try reader.bytes(at: offset, count: Int(chunkHeaderSize)) : []
        guard header.count == Int(chunkHeaderSize) else {
            if dataOffset == nil {
                stopReason = "the file ends inside a chunk header at offset \(offset)"
            } else {
                warnings.append("ignored \(fileSize - offset) stray bytes at the end of the file")
            }
            return nil
        }
        return header
    }

    /// The chunk id: the four characters, or for Wave64 the FourCC its GUID stands for.
    private func chunkID(_ header: [UInt8]) -> FourCC {
        isWave64 ? Wave64.fourCC(header, at: 0) ?? FourCC(header) : FourCC(header)
    }

    /// Steps back one byte when an odd-sized chunk lacks its pad byte, since some writers leave it out.
    ///
    /// libsndfile reads on regardless, so a header that is not text here but is text one byte earlier is taken from
    /// there, with a warning.
    private mutating func skipMissingPadByte(
        after previous: WAVChunkInfo?, offset: inout Int64, header: inout [UInt8]
    ) throws(WAVError) {
        guard !isWave64, let previous, previous.size & 1 == 1, !FourCC(header).isPrintable else { return }
        let earlier = try reader.bytes(at: offset - 1, count: 8)
        guard earlier.count == 8, FourCC(earlier).isPrintable else { return }
        warnings.append(
            "chunk \"\(previous.id)\" at offset \(previous.offset) has odd size \(previous.size) but no"
                + " pad byte; reading the next chunk from offset \(offset - 1)")
        offset -= 1
        header = earlier
    }

    /// Whether the walk has left the chunks: too many ids in a row that are not text, or, once the audio is found,
    /// one id that is not text, since what follows the audio must not fail the file.
    private mutating func isPastTheChunks(id: FourCC, at offset: Int64, garbage: Int) -> Bool {
        if garbage > Self.maxGarbageChunks {
            note(
                "stopped reading chunks at offset \(offset): \(Self.maxGarbageChunks) chunk ids in a row are not text",
                warn: false)
            return true
        }
        if dataOffset != nil, !id.isPrintable {
            warnings.append(
                "stopped reading chunks at offset \(offset): the bytes after the audio data are not a chunk"
                    + " (id \(id.display))")
            return true
        }
        return false
    }

    /// Lists a Wave64 chunk whose size is below its own 24-byte header, which the walk cannot step past.
    private mutating func noteUndersizedWave64Chunk(_ header: [UInt8], at offset: Int64) {
        let total = byteOrder.uint64(header, at: 16)
        note("chunk at offset \(offset) declares \(total) bytes, less than its own header", warn: dataOffset != nil)
        chunks.append(WAVChunkInfo(id: Wave64.display(header), offset: offset, size: total))
    }

    /// The body size a chunk header declares: Wave64's without its header, else the 32-bit size, or the ds64 size
    /// where that is 0xFFFFFFFF in an RF64 file.
    private func chunkSize(_ header: [UInt8], id: FourCC) -> UInt64 {
        if isWave64 { return byteOrder.uint64(header, at: 16) - 24 }
        let size32 = byteOrder.uint32(header, at: 4)
        guard size32 == 0xFFFF_FFFF, let ds64 else { return UInt64(size32) }
        return id == .data ? ds64.dataSize : ds64.chunkSizes[id] ?? UInt64(size32)
    }

    /// Reads what the walk needs from a chunk's body (format, fact, audio extent, metadata); returns whether the walk
    /// goes on past it, which it does not after audio of unknown or clamped length.
    private mutating func readChunkBody(
        _ chunk: WAVChunkInfo, id: FourCC, at body: Int64, size32: UInt32, available: UInt64
    ) throws(WAVError) -> Bool {
        let size = chunk.size
        let fits = size <= available
        switch id {
        case .fmt:
            try readFormat(at: body, size: size, available: available, chunkOffset: chunk.offset)
        case .fact where fits && size >= 4 && factFrames == nil:
            let bytes = try reader.bytes(at: body, count: 4)
            guard bytes.count == 4 else { break }  // a stream that ended inside it
            let value = byteOrder.uint32(bytes, at: 0)
            factFrames = Int64(clamping: value == 0xFFFF_FFFF ? ds64?.sampleCount ?? UInt64(value) : UInt64(value))
        case .data where dataOffset == nil:
            dataOffset = body
            return try measureData(at: body, size: size, size32: size32, available: available)
        case .data:
            warnings.append("ignored a second data chunk at offset \(chunk.offset)")
        case .smpl where fits:
            try checkSampler(at: body, size: size, chunkOffset: chunk.offset)
            metadata.readSampler(try metadataBody(at: body, size: size), byteOrder: byteOrder)
        case FourCC("LIST"), FourCC("list"):
            let list = try metadataBody(at: body, size: min(size, available))
            if list.count >= 4 {
                switch FourCC(list) {
                case FourCC("INFO"): metadata.readInfo(list, byteOrder: byteOrder)
                case FourCC("adtl"): metadata.readAssociatedData(list, byteOrder: byteOrder)
                default: break
                }
            }
        case FourCC("bext"):
            metadata.readBroadcast(try metadataBody(at: body, size: min(size, available)), byteOrder: byteOrder)
        case FourCC("cue "):
            metadata.readCue(try metadataBody(at: body, size: min(size, available)), byteOrder: byteOrder)
        case FourCC("inst"):
            metadata.readInstrument(try metadataBody(at: body, size: min(size, available)))
        default:
            break
        }
        return true
    }

    /// A metadata chunk's body, at most 64 KiB of it (never more, whatever the chunk declares).
    private mutating func metadataBody(at body: Int64, size: UInt64) throws(WAVError) -> [UInt8] {
        try reader.bytes(at: body, count: Int(min(size, UInt64(HeaderReader.maxRead))))
    }

    /// Records why the walk stopped: a warning once the audio is found, else the reason for the error to come.
    private mutating func note(_ reason: String, warn: Bool) {
        if warn { warnings.append(reason) } else { stopReason = reason }
    }

    private mutating func readFormat(
        at body: Int64, size: UInt64, available: UInt64, chunkOffset: Int64
    ) throws(WAVError) {
        guard format == nil else {
            warnings.append("ignored a second fmt chunk at offset \(chunkOffset)")
            return
        }
        guard dataOffset == nil else { throw WAVError(.missingFormat, "the fmt chunk comes after the data chunk") }
        guard size <= available else {
            throw WAVError(
                .truncatedHeader, "fmt chunk declares \(size) bytes but only \(available) are left in the file")
        }
        // Else the walk would jump as far as the size says (2 GiB into a sparse file, a pipe read for minutes).
        guard size <= WAVFormat.maxChunkSize else {
            throw WAVError(
                .invalidFormat,
                "fmt chunk declares \(size) bytes; a fmt chunk holds at most \(WAVFormat.maxChunkSize)"
                    + " (WAVEFORMATEX with the largest extension)")
        }
        let bytes = try reader.bytes(at: body, count: Int(min(size, UInt64(HeaderReader.maxRead))))
        guard bytes.count == Int(min(size, UInt64(HeaderReader.maxRead))) else {
            throw WAVError(.truncatedHeader, "the stream ends inside the fmt chunk (\(bytes.count) of \(size) bytes)")
        }
        format = try WAVFormat(fmtChunk: bytes, declaredSize: size, byteOrder: byteOrder, warnings: &warnings)
    }

    private mutating func readDS64(at body: Int64, size: UInt64, available: UInt64) throws(WAVError) {
        guard size >= 24, size <= available else {
            warnings.append("ds64 chunk of \(size) bytes is too short or cut off; ignored")
            return
        }
        let bytes = try reader.bytes(at: body, count: Int(min(size, UInt64(HeaderReader.maxRead))))
        guard bytes.count >= 24 else {
            warnings.append("ds64 chunk is cut off by the end of the stream; ignored")
            return
        }
        ds64 = DS64(bytes, byteOrder: byteOrder)
    }

    /// Warns about a sampler (`smpl`) chunk whose loop table or sampler data does not fit it.
    ///
    /// The player ignores loop points, but a broken smpl chunk marks a file other readers reject (jstrait/wavefile
    /// treats it as invalid), so playing it deserves a word.
    private mutating func checkSampler(at body: Int64, size: UInt64, chunkOffset: Int64) throws(WAVError) {
        let header = size >= 36 ? try reader.bytes(at: body, count: 36) : []
        guard header.count == 36 else {
            warnings.append(
                "smpl chunk at offset \(chunkOffset) is \(size) bytes, less than its 36-byte header; ignored")
            return
        }
        let loops = UInt64(byteOrder.uint32(header, at: 28))
        let samplerData = UInt64(byteOrder.uint32(header, at: 32))
        if 36 + loops * 24 + samplerData > size {
            warnings.append(
                "smpl chunk at offset \(chunkOffset) declares \(loops) loops and \(samplerData) bytes of sampler data,"
                    + " more than its \(size) bytes; ignored")
        }
    }

    /// Decides how many audio bytes the data chunk holds; returns whether the walk should go on past it.
    ///
    /// Three kinds of header are not what they say. A size of 0xFFFFFFFF without ds64 means "unknown" (ffmpeg
    /// writing to a pipe). A size of 0 from a recorder that never came back to fix its header (its RIFF size is
    /// 0, 0xFFFFFFFF or ends before the audio) means the audio runs to the end of the file, unless a real chunk
    /// follows (then the data chunk is really empty). A size past the end of the file is clamped.
    private mutating func measureData(
        at body: Int64, size: UInt64, size32: UInt32, available: UInt64
    ) throws(WAVError) -> Bool {
        if isStream {
            try measureStreamData(at: body, size: size, size32: size32)
            return false
        }
        var unknownLength: String?
        if size32 == 0xFFFF_FFFF && ds64 == nil {
            unknownLength = "data chunk size is 0xFFFFFFFF (length unknown when the header was written)"
        } else if size == 0, available > 0, try !chunkFollows(at: body) {
            let riff = (riffSize == 0xFFFF_FFFF ? ds64?.riffSize : nil) ?? riffSize
            if riff == 0 || riff == 0xFFFF_FFFF || riff <= UInt64(body - 8) {
                unknownLength = "data chunk size is 0 and the RIFF size is \(riff): the header was never finished"
            }
        }
        if let unknownLength {
            dataByteCount = Int64(available)
            warnings.append("\(unknownLength); playing to the end of the file (\(available) bytes)")
            return false
        }
        dataByteCount = Int64(min(size, available))
        if size > available {
            warnings.append(
                "data chunk declares \(size) bytes but only \(available) are in the file; playing \(available)")
            return false
        }
        return true
    }

    /// The audio of a stream: what the header declares, or, for a streaming header (`streamingDataSizes`, with no
    /// ds64 to say more), everything to the end of the stream. Either way the feeder ends where the stream ends; a
    /// streaming header is how a pipe's WAV normally looks, so it is no warning. A size of 0 followed by a real
    /// chunk is an empty data chunk, as in a file.
    private mutating func measureStreamData(at body: Int64, size: UInt64, size32: UInt32) throws(WAVError) {
        var streaming =
            !isWave64 && Self.streamingDataSizes.contains(size32) && (size32 != 0xFFFF_FFFF || ds64 == nil)
        if streaming && size32 == 0 { streaming = try !chunkFollows(at: body) }
        // A stream that ends before its first whole frame holds no audio: say so now, as for a file, rather than play
        // nothing. (This waits for the producer's first frame, as playing would, and may show where the stream ends.)
        let frame = format?.blockAlign ?? 1
        guard try reader.bytes(at: body, count: frame).count == frame else {
            dataByteCount = 0
            return
        }
        // The walk may have seen the stream end already (a short stream within the header window): then it is known.
        lengthIsKnown = !streaming || fileSize != reader.reader.size
        // A declared size is the most a stream plays (it may end sooner): within its end when that is known.
        dataByteCount = streaming ? fileSize - body : Int64(clamping: min(size, UInt64(fileSize - body)))
    }

    /// Whether a plausible chunk header (printable id, size within the file) starts at `offset`.
    private mutating func chunkFollows(at offset: Int64) throws(WAVError) -> Bool {
        guard fileSize - offset >= 8 else { return false }
        let header = try reader.bytes(at: offset, count: 8)
        guard header.count == 8, FourCC(header).isPrintable else { return false }
        return Int64(byteOrder.uint32(header, at: 4)) <= fileSize - offset - 8
    }
}
