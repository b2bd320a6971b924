// yt-gst — libFuzzer entry point for the pure-Swift WAV reader (built by scripts/fuzz.sh, not by SwiftPM).
//
// The reader's sources are compiled straight into this executable with -sanitize=fuzzer,address, so a crash, an
// out-of-bounds read or an allocation beyond libFuzzer's -malloc_limit_mb is a finding.
import WAV

/// A file whose first bytes are the fuzz input and whose remaining `paddedSize - bytes.count` bytes read as zeros:
/// a header may then declare gigabytes that "exist", as on a sparse RF64 file, without the fuzzer allocating them.
struct PaddedReader: ByteReader {
    let bytes: [UInt8]
    let paddedSize: Int64

    var size: Int64 { paddedSize }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        guard offset >= 0, offset < paddedSize, buffer.count > 0 else { return 0 }
        let count = Int(min(Int64(buffer.count), paddedSize - offset))
        let real = offset < Int64(bytes.count) ? min(count, bytes.count - Int(offset)) : 0
        if real > 0 {
            bytes.withUnsafeBytes { stored in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: stored[Int(offset)..<Int(offset) + real]))
            }
        }
        if count > real {
            UnsafeMutableRawBufferPointer(rebasing: buffer[real..<count]).initializeMemory(as: UInt8.self, repeating: 0)
        }
        return count
    }
}

/// Exercises everything derived from a parsed header and checks the invariants the feeder relies on.
func exercise(_ file: WAVFile) {
    let format = file.format
    precondition(file.dataOffset >= 0 && file.dataByteCount >= 0, "negative data range")
    precondition(
        file.dataOffset.addingReportingOverflow(file.dataByteCount).overflow == false
            && file.dataOffset + file.dataByteCount <= file.fileSize, "data range runs past the end of the file")
    precondition(format.channels >= 1 && format.sampleRate >= 1 && format.blockAlign >= 1, "unchecked format")
    precondition(file.frameCount >= 0, "negative frame count")
    _ = file.durationSeconds
    _ = format.formatName
    _ = format.rawCaps
    _ = format.codecCaps
    _ = format.declaredSamplesPerBlock
    if let plan = PacketPlan(file: file, chunkMilliseconds: 200) {
        precondition(plan.unitBytes >= 1 && plan.chunkUnits >= 1, "empty packets")
        precondition(
            plan.chunkUnits == 1 || plan.chunkUnits * Int64(plan.unitBytes) <= PacketPlan.maxChunkBytes, "huge buffers")
        precondition(plan.totalUnits * Int64(plan.unitBytes) <= file.dataByteCount, "plan past the data")
        let last = max(0, plan.totalUnits - 1)
        _ = plan.timing(units: last..<plan.totalUnits)
        _ = plan.unit(atNanoseconds: UInt64.max)
        _ = plan.unit(atNanoseconds: 1_000_000_000)
    }
    _ = file.metadata.gstreamerTags
    try? file.requirePlayableRaw()
}

/// Parses `bytes` as a pipe delivers them (forward only, in pieces of `pieceSize`), then reads the audio forward as
/// the feeder does, to the end of the stream: the parser must never read back past what a `StreamReader` keeps
/// (`.notSeekable` is a finding), and memory stays bounded whatever the header declares.
func exerciseStream(_ bytes: [UInt8], pieceSize: Int) {
    let reader = StreamReader(MemoryStream(bytes, pieceSize: pieceSize))
    let file: WAVFile
    do {
        file = try WAVFile(reader: reader)
    } catch {
        precondition(error.kind != .notSeekable, "the parser read back on a stream: \(error)")
        return
    }
    precondition(file.isStream && file.chunks.allSatisfy { $0.offset < file.dataOffset }, "walked past the audio")
    exercise(file)
    var offset = file.dataOffset
    var chunk = [UInt8](repeating: 0, count: 4096)
    while offset < file.dataOffset + file.dataByteCount {
        let count = Int(min(Int64(chunk.count), file.dataOffset + file.dataByteCount - offset))
        let got = chunk.withUnsafeMutableBytes { buffer in
            Result { () throws(WAVError) -> Int in
                try reader.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
            }
        }
        guard case .success(let n) = got else { preconditionFailure("reading the audio of a stream failed: \(got)") }
        offset += Int64(n)
        if n < count { break }
    }
    precondition(reader.position <= Int64(bytes.count), "read past the stream")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Even-sized inputs are read as they are; odd-sized ones as the start of a 64 GiB file of zeros, where declared
    // sizes may "fit" (as on a sparse RF64 file) without the fuzzer allocating them. One parse per input keeps the
    // fuzzer fast; the mutator flips sizes often enough that every input is tried both ways.
    if size % 2 == 0 {
        if let file = try? WAVFile(reader: MemoryReader(bytes)) { exercise(file) }
    } else if let file = try? WAVFile(reader: PaddedReader(bytes: bytes, paddedSize: 1 << 36)) {
        exercise(file)
    }
    // And as a pipe delivers it: forward only, in pieces of 1 to 61 bytes (short reads everywhere).
    exerciseStream(bytes, pieceSize: size % 61 + 1)
    return 0
}
