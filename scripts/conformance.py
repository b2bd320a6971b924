#!/usr/bin/env python3
"""yt-gst — conformance against the shared WAV corpus, for yt-gst and for GStreamer's own wavparse.

Usage: scripts/conformance.py YT_GST_BINARY [CORPUS_DIR]   (run by `make conformance`; standard library only)

Every manifest row is played twice, into a file: by `yt-gst play FILE --pipeline 'appsrc name=src ! ...'` (yt-gst puts
its decoder after the appsrc for compressed files) and by `gst-launch-1.0 filesrc ! wavparse ! ...`. Both players are
judged by the same rules, taken from the manifest's oracle columns and nothing the players say about the file:
  expected_valid=yes, frames=0    exit 0 and nothing comes out;
  PCM/float                       the samples (as the file stores them, little-endian) hash to pcm_sha256 where the
                                  manifest has one, and there are exactly `frames` frames (block_align from the manifest);
  A-law / mu-law                  the S16LE decode hashes to decoded_s16_sha256 and there are exactly `frames` frames;
  other codecs                    at least one frame comes out, the frame count is within one block of `frames` (the
                                  block size computed from the manifest's fmt fields), and the decode is libsndfile's
                                  bit for bit (decoded_s16_sha256), or close to a reference decode (the IMA reference,
                                  checked to reproduce libsndfile's hash, or sox): SNR >= 30 dB or RMS error <= 8 LSB;
  expected_valid=no               a clean error (yt-gst: exit 1 and one line naming the file; wavparse: a non-zero exit,
                                  not a hang), or exit 0 with exactly the file's intact audio: the first `frames` frames
                                  of its valid sibling in Tests/corpus-intact-audio.tsv (decoded by sox and checked
                                  against the sibling's pcm_sha256), or nothing where the table says 0 frames; a file
                                  not in the table has no intact audio to play (yt-gst must also warn, one line each).
Prints one table per player (variant, files, passed) and a combined Markdown table for the README; with
CONFORMANCE_VERBOSE=1 also why each failed row failed.
"""
import csv
import hashlib
import math
import os
import struct
import subprocess
import sys
import tempfile

IMA_STEPS = [
    7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66, 73, 80, 88, 97,
    107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408, 449, 494, 544, 598, 658, 724, 796,
    876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066, 2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871,
    5358, 5894, 6484, 7132, 7845, 8630, 9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385,
    24623, 27086, 29794, 32767]
IMA_INDEX = [-1, -1, -1, -1, 2, 4, 6, 8, -1, -1, -1, -1, 2, 4, 6, 8]
S16LE = 'audioconvert ! audio/x-raw,format=S16LE,layout=interleaved'
INTACT_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'Tests', 'corpus-intact-audio.tsv')


def ima_decode(data, channels, block_align):
    """The IMA ADPCM reference (shifts, as libsndfile), whole blocks, interleaved int16."""
    spb = (block_align - 4 * channels) * 8 // (4 * channels) + 1
    out = []
    for start in range(0, len(data) - block_align + 1, block_align):
        pred, idx, chans = [], [], []
        for ch in range(channels):
            at = start + 4 * ch
            pred.append(struct.unpack_from('<h', data, at)[0])
            idx.append(min(max(data[at + 2], 0), 88))
            chans.append([pred[ch]])
        at = start + 4 * channels
        while at + 4 * channels <= start + block_align:
            for ch in range(channels):
                for b in range(4):
                    value = data[at + 4 * ch + b]
                    for code in (value & 0x0F, value >> 4):
                        step = IMA_STEPS[idx[ch]]
                        diff = step >> 3
                        if code & 1: diff += step >> 2
                        if code & 2: diff += step >> 1
                        if code & 4: diff += step
                        if code & 8: diff = -diff
                        pred[ch] = min(max(pred[ch] + diff, -32768), 32767)
                        idx[ch] = min(max(idx[ch] + IMA_INDEX[code], 0), 88)
                        chans[ch].append(pred[ch])
            at += 4 * channels
        for frame in range(spb):
            for ch in range(channels):
                out.append(chans[ch][frame])
    return out


def int16(data):
    return list(struct.unpack('<%dh' % (len(data) // 2), data[:len(data) // 2 * 2]))


def close(test, ref):
    """SNR >= 30 dB or RMS error <= 8 LSB over the common length; never for an empty overlap."""
    n = min(len(test), len(ref))
    if n == 0:
        return False
    noise = sum((test[i] - ref[i]) ** 2 for i in range(n))
    signal = sum(ref[i] ** 2 for i in range(n))
    if noise == 0:
        return True
    snr = 10 * math.log10(max(signal, 1) / noise)
    return snr >= 30 or math.sqrt(noise / n) <= 8


def run(args, timeout=30):
    """(exit code or 'timeout', stderr lines)."""
    try:
        r = subprocess.run(args, capture_output=True, timeout=timeout, text=True, errors='replace')
        return r.returncode, [l for l in r.stderr.splitlines() if l]
    except subprocess.TimeoutExpired:
        return 'timeout', []


def read(path):
    try:
        with open(path, 'rb') as f:
            return f.read()
    except OSError:
        return None


def sox_raw(path, options=()):
    """The bytes sox decodes `path` to (no options: the file's own encoding and width), or None."""
    with tempfile.NamedTemporaryFile(suffix='.raw') as raw:
        code, _ = run(['sox', path, '-t', 'raw'] + list(options) + [raw.name])
        return read(raw.name) if code == 0 else None


def data_chunk(data, big_endian):
    """The data chunk's bytes by a plain chunk walk (sizes clamped to the file), or None."""
    at = 12
    while at + 8 <= len(data):
        size = struct.unpack_from('>I' if big_endian else '<I', data, at + 4)[0]
        if data[at:at + 4] == b'data':
            return data[at + 8:at + 8 + size]
        at += 8 + size + (size & 1)
    return None


class Row:
    def __init__(self, fields, corpus):
        self.__dict__.update(fields)
        self.full = os.path.join(corpus, self.path)
        self.valid = self.expected_valid == 'yes'
        tag = self.format_tag
        if 'sub=0x' in tag:
            self.tag = int(tag.split('sub=0x')[1][:4], 16)
        elif tag.startswith('0x'):
            self.tag = int(tag[2:6], 16)
        else:
            self.tag = None
        self.pcm = self.tag in (1, 3) or self.libsndfile_subtype in (
            'PCM_U8', 'PCM_S8', 'PCM_16', 'PCM_24', 'PCM_32', 'FLOAT', 'DOUBLE')
        self.channels_n = int(self.channels or 0)
        self.block_align_n = int(self.block_align or 0)

    @property
    def variant(self):
        if not self.valid:
            return 'invalid (%s)' % (self.container if self.container != 'none' else 'not RIFF')
        name = ' '.join(self.format_tag.split(' ')[1:]) or 'no fmt'
        if self.pcm:
            kind = 'float' if self.tag == 3 else 'PCM'
            return '%s %s %s%s' % (self.container, kind, self.bits_per_sample or '?',
                                   ' ext' if self.format_tag.startswith('0xFFFE') else '')
        return '%s %s' % (self.container, name)

    @property
    def frames_per_block(self):
        """Frames of one codec block, from the manifest's fmt fields (the frame count tolerance)."""
        ch, align = max(self.channels_n, 1), self.block_align_n
        if self.tag == 0x11:
            return (align - 4 * ch) * 2 // ch + 1
        if self.tag == 0x02:
            return (align - 7 * ch) * 2 // ch + 2
        if self.tag == 0x31:
            return 320
        if self.tag in (0x50, 0x55):
            return 1152
        return 1

    def as_stored(self, got):
        """Raw PCM/float output as the manifest hashes it: little-endian, in the file's container width. RIFX comes
        out with big-endian caps; 40- to 56-bit integers come out widened to F64LE (GStreamer has no such format)."""
        width = self.block_align_n // max(self.channels_n, 1)
        if self.container == 'RIFX' and width > 1:
            return b''.join(got[i:i + width][::-1] for i in range(0, len(got), width))
        if self.tag == 1 and 5 <= width <= 7:
            values = struct.unpack('<%dd' % (len(got) // 8), got[:len(got) // 8 * 8])
            scale = 2.0 ** (8 * width - 1)
            if not all(math.isfinite(v) and abs(v) <= 1 for v in values):
                return got  # not widened integers: left as they came, so the hash cannot match
            return b''.join(int(round(v * scale)).to_bytes(width, 'little', signed=True) for v in values)
        return got


class Intact:
    """Tests/corpus-intact-audio.tsv: the audio a played invalid file must give."""

    def __init__(self, rows):
        self.by_path = {r.path: r for r in rows}
        self.entries = {}
        with open(INTACT_TABLE, encoding='utf-8') as f:
            for line in f:
                fields = line.rstrip('\n').split('\t')
                if line.startswith('#') or fields[0] == 'path' or len(fields) != 4:
                    continue
                self.entries[fields[0]] = (fields[1], int(fields[2]))
        self.cache = {}

    def samples(self, row):
        """The intact audio of an invalid row (bytes), or None when it has none to play."""
        if row.path not in self.entries:
            return None
        if row.path not in self.cache:
            sibling_path, frames = self.entries[row.path]
            sibling = self.by_path.get(sibling_path)
            if sibling is None:
                self.cache[row.path] = b'' if sibling_path == '-' and frames == 0 else None
            else:
                raw = sox_raw(sibling.full)
                ok = raw is not None and hashlib.sha256(raw).hexdigest() == sibling.pcm_sha256
                self.cache[row.path] = raw[:frames * sibling.block_align_n] if ok else None
        return self.cache[row.path]


def judge_compressed(row, decoded):
    expected = int(row.frames)
    frames = len(decoded) // (2 * row.channels_n)
    digest = hashlib.sha256(decoded).hexdigest()
    if row.tag in (6, 7):
        return digest == row.decoded_s16_sha256 and frames == expected, 'G.711: %d frames, sha256 %s' % (
            frames, digest[:12])
    if frames == 0 or abs(frames - expected) > row.frames_per_block:
        return False, '%d frames, manifest %d (block %d)' % (frames, expected, row.frames_per_block)
    if digest == row.decoded_s16_sha256:
        return True, 'bit-exact'
    if row.tag == 0x11:
        data = data_chunk(read(row.full), row.container == 'RIFX') or b''
        ref = ima_decode(data, row.channels_n, row.block_align_n)
        if hashlib.sha256(struct.pack('<%dh' % len(ref), *ref)).hexdigest() != row.decoded_s16_sha256:
            return False, 'the IMA reference does not reproduce libsndfile here'
    else:
        raw = sox_raw(row.full, ['-e', 'signed', '-b', '16', '-L'])
        if raw is None:
            return False, 'not bit-exact, and sox cannot decode it'
        ref = int16(raw)
    return close(int16(decoded), ref), 'compared with the reference decode'


def judge(row, code, lines, got, intact, ytgst):
    """(passed, why) for one player's run of one row, by the manifest alone."""
    if code == 'timeout':
        return False, 'timed out'
    if not row.valid:
        if code != 0:
            if not ytgst:
                return True, 'error'
            ok = code == 1 and len(lines) == 1 and lines[0].startswith('yt-gst: %s: ' % row.full)
            return ok, 'error: exit %s, %d lines' % (code, len(lines))
        expected = intact.samples(row)
        if expected is None:
            return False, 'played %d bytes, but the file has no intact audio' % len(got)
        warned = not ytgst or (lines and all('warning:' in l for l in lines))
        same = (row.as_stored(got) if row.pcm else got) == expected
        return bool(warned and same), 'played %d bytes (intact: %d), warned: %s' % (len(got), len(expected), warned)
    if code != 0:
        return False, 'exit %s' % code
    expected = int(row.frames)
    if expected == 0:
        return len(got) == 0, '%d bytes out, none expected' % len(got)
    if len(got) == 0:
        return False, 'nothing came out, %d frames expected' % expected
    if not row.pcm:
        return judge_compressed(row, got)
    samples = row.as_stored(got)
    frames = len(samples) // row.block_align_n
    hash_ok = not row.pcm_sha256 or hashlib.sha256(samples).hexdigest() == row.pcm_sha256
    return hash_ok and frames == expected, '%d frames (manifest %d), sha256 %s' % (
        frames, expected, 'matches' if hash_ok else 'differs')


def yt_gst(row, binary, out):
    tail = 'filesink location=%s' % out if row.pcm else '%s ! filesink location=%s' % (S16LE, out)
    return run([binary, 'play', row.full, '--pipeline', 'appsrc name=src ! ' + tail])


def wavparse(row, out):
    launch = ['gst-launch-1.0', '-q', 'filesrc', 'location=%s' % row.full, '!', 'wavparse', '!']
    if not row.pcm:
        launch += ['decodebin', '!'] + S16LE.split(' ') + ['!']
    return run(launch + ['filesink', 'location=%s' % out])


def main():
    binary = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'wav-corpus')
    manifest = os.path.join(corpus, 'manifest.tsv')
    if not os.path.exists(manifest):
        print('conformance: no corpus at %s (set YT_GST_WAV_CORPUS)' % corpus)
        return 1
    with open(manifest, encoding='utf-8', newline='') as f:
        rows = [Row(fields, corpus) for fields in csv.DictReader(f, delimiter='\t', quoting=csv.QUOTE_NONE)]
    intact = Intact(rows)
    table = {}
    failures = {'yt-gst': [], 'wavparse': []}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.raw')
        for row in rows:
            results = []
            for name, player in (('yt-gst', lambda r: yt_gst(r, binary, out)), ('wavparse', lambda r: wavparse(r, out))):
                if os.path.exists(out):
                    os.remove(out)
                try:
                    code, lines = player(row)
                    passed, why = judge(row, code, lines, read(out) or b'', intact, name == 'yt-gst')
                except Exception as error:  # a judging failure is a failure, not a crash of the script
                    passed, why = False, 'judging failed: %r' % error
                results.append(passed)
                if not passed:
                    failures[name].append('%s (%s)' % (row.path, why))
            entry = table.setdefault(row.variant, [0, 0, 0])
            entry[0] += 1
            entry[1] += results[0]
            entry[2] += results[1]

    def order(item):
        return (item[0].startswith('invalid'), item[0])

    total = [sum(e[i] for e in table.values()) for i in range(3)]
    width = max(len(v) for v in table) + 2
    for title, column in (('yt-gst', 1), ('gst-launch-1.0 filesrc ! wavparse', 2)):
        print('\n%s' % title)
        print('%-*s %6s %7s' % (width, 'variant', 'files', 'passed'))
        for variant, entry in sorted(table.items(), key=order):
            print('%-*s %6d %7d' % (width, variant, entry[0], entry[column]))
        print('%-*s %6d %7d' % (width, 'total', total[0], total[column]))
    print('\nMarkdown (README):\n')
    print('| variant | files | yt-gst passed | wavparse passed |')
    print('|---|---:|---:|---:|')
    for variant, entry in sorted(table.items(), key=order):
        print('| %s | %d | %d | %d |' % (variant, entry[0], entry[1], entry[2]))
    print('| **total** | **%d** | **%d** | **%d** |' % tuple(total))
    if os.environ.get('CONFORMANCE_VERBOSE'):
        print('\nwavparse failed:\n  ' + '\n  '.join(failures['wavparse']))
    if failures['yt-gst']:
        print('\nyt-gst failed:\n  ' + '\n  '.join(failures['yt-gst']))
    return 1 if failures['yt-gst'] else 0


if __name__ == '__main__':
    sys.exit(main())
