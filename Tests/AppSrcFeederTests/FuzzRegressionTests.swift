// yt-gst — what the fuzzer found, kept as tests: every input in fuzz/regressions/ (committed) and fuzz/findings/
// (what a local `make fuzz` wrote) is parsed again with the fuzz target's invariants, within a time limit.
import AppSrcFeeder
import Foundation
import TestSupport
import Testing
import WAV

@Suite struct FuzzRegressionTests {
    static func inputs() -> [URL] {
        ["fuzz/regressions", "fuzz/findings"].flatMap { folder -> [URL] in
            let dir = Paths.packageRoot.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { dir.appendingPathComponent($0) }
        }
    }

    /// The checks of fuzz/ReaderFuzzTarget.swift `exercise`, as expectations.
    static func check(_ file: WAVFile, _ label: String) {
        #expect(file.dataOffset >= 0 && file.dataByteCount >= 0, "\(label)")
        #expect(file.dataOffset + file.dataByteCount <= file.fileSize, "\(label)")
        #expect(file.frameCount >= 0, "\(label)")
        if let plan = PacketPlan(file: file, chunkMilliseconds: 200) {
            #expect(plan.totalUnits * Int64(plan.unitBytes) <= file.dataByteCount, "\(label)")
            #expect(
                plan.chunkUnits == 1 || plan.chunkUnits * Int64(plan.unitBytes) <= PacketPlan.maxChunkBytes, "\(label)")
            _ = plan.timing(units: max(0, plan.totalUnits - 1)..<plan.totalUnits)
            _ = plan.unit(atNanoseconds: .max)
        }
        _ = file.format.codecCaps
        _ = file.metadata.gstreamerTags
    }

    @Test func everyKeptInputParsesWithinItsInvariantsAndQuickly() throws {
        for url in Self.inputs() {
            let bytes = Array(try Data(contentsOf: url))
            let start = ContinuousClock.now
            if let file = try? WAVFile(reader: MemoryReader(bytes)) { Self.check(file, url.lastPathComponent) }
            // As from a pipe: forward only, in short pieces; a parse that reads back (`.notSeekable`) is a failure.
            do {
                let file = try WAVFile(reader: StreamReader(MemoryStream(bytes, pieceSize: 7)))
                Self.check(file, url.lastPathComponent + " (stream)")
            } catch {
                #expect(error.kind != .notSeekable, "\(url.lastPathComponent) (stream): \(error)")
            }
            #expect(ContinuousClock.now - start < .milliseconds(200), "\(url.lastPathComponent) is slow")
        }
    }

    /// A sample rate of 0xFFFFFFFF in a small file must not size buffers by it.
    @Test func aBogusRateDoesNotSizeTheBuffers() throws {
        var bytes = SyntheticWAV.tone(frames: 100, rate: 8_000, channels: 2, bits: 16).bytes
        bytes.replaceSubrange(24..<28, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let file = try WAVFile(reader: MemoryReader(bytes))
        let plan = try #require(PacketPlan(file: file, chunkMilliseconds: 10_000))
        #expect(plan.chunkUnits * Int64(plan.unitBytes) <= PacketPlan.maxChunkBytes)
    }

    /// Found by the fuzzer's speed (4 ms per input): a fmt chunk followed by zeros was walked as 10,000 empty chunks
    /// with id 0x00000000. The walk now stops after 16 ids in a row that are not text.
    @Test func zerosAfterTheHeaderAreNotWalkedAsThousandsOfChunks() throws {
        let url = Paths.packageRoot.appendingPathComponent("fuzz/regressions/slow-zero-chunk-walk.wav")
        let bytes = Array(try Data(contentsOf: url))
        let error = #expect(throws: WAVError.self) { try WAVFile(reader: MemoryReader(bytes)) }
        #expect(error?.kind == .missingData)
        #expect(error?.message.contains("16 chunk ids in a row are not text") == true)
    }
}
