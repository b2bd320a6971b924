// yt-gst — a forward-only ByteReader over a pipe, with a bounded buffer for the header walk.

import Synchronization

/// A WAV arriving through a pipe, read with the same `ByteReader` calls as a file, forward only.
///
/// The parser and the feeder need no second code path: reads ask for offsets as they do on a file, and this reader
/// serves them from the stream in order. It keeps the last `keptLimit` bytes read by small reads (the parser's 4 KiB
/// window, its metadata reads and its one-byte step back over a missing pad byte), so those can be read again; a
/// read ahead of the stream reads the bytes in between, keeping only the last of them (a chunk before the audio,
/// `--start`); a large read
/// (the feeder's chunks) goes from the stream straight into the caller's buffer and keeps nothing. Memory therefore
/// stays at most `keptLimit` plus one scratch buffer, whatever the stream's length. Reading back past the kept
/// bytes throws `.notSeekable`.
///
/// `size` is unknown (`Int64.max`) and `isSeekable` is false, which tells the parser to stop at the data chunk (the
/// chunks after it are never read) and to take a streaming header's data size as "until the end of the stream".
/// - Note: Checked `Sendable`: all state is in a mutex, held while a read waits for the stream (reads come from one
///   thread at a time anyway); `cancel()` does not take it.
public final class StreamReader: ByteReader {
    /// The bytes kept for reading again: enough for the parser's largest read and its window.
    public static let keptLimit = HeaderReader.maxRead + 4096
    /// Reads of more than this go straight to the caller's buffer and keep nothing.
    private static let largeRead = HeaderReader.maxRead

    /// The stream read from.
    public let stream: any ByteStream
    private let state = Mutex(State())

    private struct State {
        /// Bytes `keptStart..<position` of the stream, the latest read.
        var kept: [UInt8] = []
        var keptStart: Int64 = 0
        /// Bytes taken from the stream so far.
        var position: Int64 = 0
        /// The stream returned 0: nothing more will come.
        var ended = false
    }

    /// Reads `stream` forward from its first byte.
    public init(_ stream: some ByteStream) {
        self.stream = stream
    }

    /// Unknown until the stream ends: as large as can be.
    public var size: Int64 { .max }

    /// A pipe cannot be read at an earlier offset.
    public var isSeekable: Bool { false }

    /// Bytes taken from the stream so far (kept or handed out): tests check that nothing was read ahead of need.
    public var position: Int64 { state.withLock { $0.position } }

    /// Reads that waited for the producer (`ByteStream.waits`): growing while a live producer paces the stream.
    public var producerWaits: Int { stream.waits }

    /// Stops the stream (see `ByteStream.cancel()`): a read waiting for data returns what it has, later reads 0.
    public func cancel() { stream.cancel() }

    /// Reads at `offset` until `buffer` is full or the stream ends (see `ByteReader`), forward only.
    ///
    /// - Throws: `.notSeekable` when `offset` lies before the kept bytes; `.io` from the stream.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        guard buffer.count > 0, offset >= 0 else { return 0 }
        // Mutex.withLock rethrows as `any Error`; carry the typed error out by hand.
        let outcome = state.withLock { state in
            Result { () throws(WAVError) -> Int in
                do throws(WAVError) {
                    return try read(at: offset, into: buffer, state: &state)
                } catch {
                    // Bytes may have gone by unkept: nothing before the stream's position can be read again.
                    state.kept = []
                    state.keptStart = state.position
                    throw error
                }
            }
        }
        return try outcome.get()
    }

    private func read(
        at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, state: inout State
    ) throws(WAVError) -> Int {
        guard offset >= state.keptStart else {
            throw WAVError(
                .notSeekable,
                "cannot go back to byte \(offset) of a stream read up to byte \(state.position): a pipe reads forward"
                    + " only")
        }
        var done = 0
        if offset < state.position {
            let start = Int(offset - state.keptStart)
            done = min(buffer.count, state.kept.count - start)
            state.kept.withUnsafeBytes { kept in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: kept[start..<start + done]))
            }
            if done == buffer.count { return done }
        } else if offset > state.position {
            guard try skip(to: offset, state: &state) else { return 0 }
        }
        let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[done...])
        let got = try fill(rest, state: &state)
        if buffer.count <= Self.largeRead {
            keep(UnsafeRawBufferPointer(rebasing: rest[0..<got]), state: &state)
        } else {
            state.kept = []
            state.keptStart = state.position
        }
        return done + got
    }

    /// Reads the bytes up to `offset`, keeping only the last `keptLimit` of them (the parser may step back one byte
    /// over a missing pad byte); false when the stream ends first.
    private func skip(to offset: Int64, state: inout State) throws(WAVError) -> Bool {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.largeRead, alignment: 1)
        defer { scratch.deallocate() }
        while state.position < offset {
            let count = Int(min(Int64(scratch.count), offset - state.position))
            let got = try fill(UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count]), state: &state)
            keep(UnsafeRawBufferPointer(rebasing: scratch[0..<got]), state: &state)
            if got < count { break }
        }
        return state.position == offset
    }

    /// Reads from the stream until `buffer` is full or the stream ends; moves `position` on.
    private func fill(_ buffer: UnsafeMutableRawBufferPointer, state: inout State) throws(WAVError) -> Int {
        var done = 0
        while done < buffer.count && !state.ended {
            let got = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if got == 0 { state.ended = true }
            done += got
            state.position += Int64(got)
        }
        return done
    }

    /// Appends bytes just read to the kept ones, dropping the oldest beyond `keptLimit`.
    private func keep(_ bytes: UnsafeRawBufferPointer, state: inout State) {
        state.kept.append(contentsOf: bytes)
        let excess = state.kept.count - Self.keptLimit
        if excess > 0 {
            state.kept.removeFirst(excess)
            state.keptStart += Int64(excess)
        }
        precondition(state.keptStart + Int64(state.kept.count) == state.position, "kept bytes end where the stream is")
    }
}
