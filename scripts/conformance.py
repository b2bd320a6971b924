#!/usr/bin/env python3
"""yt-gst — conformance against the shared WAV corpus, for yt-gst and for GStreamer's own wavparse.

Usage: scripts/conformance.py YT_GST_BINARY [CORPUS_DIR]   (run by `make conformance`; standard library only)

Every manifest row is played twice, into a file: by yt-gst (`appsrc name=src ! ...`, with the decoder WAVFeeder.decoder
names after the appsrc for compressed files, as Launch.insertingDecoder puts it) and by `gst-launch-1.0 filesrc ! wavparse ! ...`.
A row passes when:
  expected_valid=yes, PCM/float   the samples hash to pcm_sha256 (when the manifest has one) and the frame count matches;
  A-law / mu-law                  the S16LE decode hashes to decoded_s16_sha256 and the frame count matches;
  other codecs                    the frame count is within one block of the manifest's, and the decode is libsndfile's
                                  bit for bit, or close to a reference decode (the IMA reference, checked to reproduce
                                  libsndfile's hash, or sox): SNR >= 30 dB or RMS error <= 8 LSB;
  expected_valid=no               a clean error (yt-gst: exit 1 and one line naming the file; wavparse: a non-zero
                                  exit), or exactly the intact audio (yt-gst: with a warning).
Prints one table per player (variant, files, passed) and a combined Markdown table for the README.
"""
import hashlib
import json
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
    n = min(len(test), len(ref))
    if n == 0:
        return True
    noise = sum((test[i] - ref[i]) ** 2 for i in range(n))
    signal = sum(ref[i] ** 2 for i in range(n))
    if noise == 0:
        return True
    snr = 10 * math.log10(max(signal, 1) / noise)
    return snr >= 30 or math.sqrt(noise / n) <= 8


def run(args, timeout=30):
    try:
        r = subprocess.run(args, capture_output=True, timeout=timeout, text=True, errors='replace')
        return r.returncode, r.stderr
    except subprocess.TimeoutExpired:
        return 'timeout', ''


def read(path):
    try:
        with open(path, 'rb') as f:
            return f.read()
    except OSError:
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


def frames_of(n_bytes, channels, width=2):
    return n_bytes // (width * channels) if channels else 0


def judge_compressed(row, decoded, channels, block):
    expected = int(row.frames or -1)
    frames = frames_of(len(decoded), channels)
    digest = hashlib.sha256(decoded).hexdigest()
    if row.tag in (6, 7):
        return digest == row.decoded_s16_sha256 and frames == expected
    if abs(frames - expected) > block:
        return False
    if digest == row.decoded_s16_sha256:
        return True
    if row.tag == 0x11:
        data = read(row.full)
        info = row.info
        ref = ima_decode(data[info['dataOffset']:info['dataOffset'] + info['dataBytes']], channels, info['blockAlign'])
        if hashlib.sha256(struct.pack('<%dh' % len(ref), *ref)).hexdigest() != row.decoded_s16_sha256:
            return False  # the reference itself would not be libsndfile's decode
    else:
        with tempfile.NamedTemporaryFile(suffix='.raw') as raw:
            code, _ = run(['sox', row.full, '-t', 'raw', '-e', 'signed', '-b', '16', '-L', raw.name])
            if code != 0:
                return False
            ref = int16(read(raw.name))
    return close(int16(decoded), ref)


def judge_pcm(row, samples, info):
    """samples: little-endian, in the file's container width."""
    expected = int(row.frames or -1)
    frames = len(samples) // info['blockAlign']
    return (not row.pcm_sha256 or hashlib.sha256(samples).hexdigest() == row.pcm_sha256) and frames == expected


def block_of(info):
    codec = info.get('codec') or {}
    return codec.get('framesPerBlock') or 1152


def yt_gst(row, binary, out):
    r = subprocess.run([binary, 'info', '--json', row.full], capture_output=True, text=True)
    info = json.loads(r.stdout)[0] if r.returncode == 0 else None
    row.info = info
    if info is None:
        code, err = run([binary, 'play', '-q', row.full, '--sink', 'fakesink'])
        return not row.valid and code == 1 and len(err.splitlines()) == 1 and row.full in err
    compressed = info['sampleFormat'] is None
    if compressed:
        # The decoder WAVFeeder.decoder names (mpg123 for MPEG audio, else decodebin), as Launch.insertingDecoder puts it.
        decoder = 'mpegaudioparse ! mpg123audiodec' if row.tag in (0x50, 0x55) else 'decodebin'
        launch = 'appsrc name=src ! %s ! audioconvert ! audio/x-raw,format=S16LE ! filesink location=%s' % (decoder, out)
    else:
        launch = 'appsrc name=src ! filesink location=%s' % out
    code, err = run([binary, 'play', row.full, '--pipeline', launch])
    lines = [l for l in err.splitlines() if l]
    if not row.valid:
        if code == 1:
            return len(lines) == 1 and lines[0].startswith('yt-gst: %s: ' % row.full)
        got = read(out) or b''
        return code == 0 and lines and all('warning:' in l for l in lines) and (
            compressed or len(got) == info['dataBytes'])
    if code != 0:
        return False
    got = read(out) or b''
    if compressed:
        return judge_compressed(row, got, info['channels'], block_of(info))
    fmt = info['sampleFormat']
    width = info['blockAlign'] // info['channels']
    if fmt.endswith('BE'):
        got = b''.join(got[i:i + width][::-1] for i in range(0, len(got), width))
    elif fmt == 'F64LE' and width < 8:  # 40- to 56-bit integers widened to doubles on the way
        values = struct.unpack('<%dd' % (len(got) // 8), got)
        scale = 2.0 ** (8 * width - 1)
        got = b''.join(int(round(v * scale)).to_bytes(width, 'little', signed=True) for v in values)
    return judge_pcm(row, got, info)


def wavparse(row, out):
    info = getattr(row, 'info', None)
    compressed = info is not None and info['sampleFormat'] is None
    launch = ['gst-launch-1.0', '-q', 'filesrc', 'location=%s' % row.full, '!', 'wavparse', '!']
    if compressed or (not row.pcm and row.valid):
        launch += ['decodebin', '!', 'audioconvert', '!', 'audio/x-raw,format=S16LE', '!']
    launch += ['filesink', 'location=%s' % out]
    code, _ = run(launch)
    got = read(out) or b''
    if not row.valid:
        if code == 'timeout':
            return False
        if code != 0:
            return True
        return info is not None and not compressed and len(got) == info['dataBytes']
    if code != 0 or info is None:
        return False
    if compressed or not row.pcm:
        return judge_compressed(row, got, info['channels'], block_of(info))
    return judge_pcm(row, got, info)


def main():
    binary = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), '..', '..', 'shared', 'wav-corpus')
    manifest = os.path.join(corpus, 'manifest.tsv')
    if not os.path.exists(manifest):
        print('conformance: no corpus at %s (set YT_GST_WAV_CORPUS)' % corpus)
        return 0
    with open(manifest, encoding='utf-8') as f:
        lines = [l.rstrip('\n').split('\t') for l in f if l.strip()]
    header = lines[0]
    rows = [Row(dict(zip(header, l)), corpus) for l in lines[1:]]
    table = {}
    failures = []
    wavparse_failures = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.raw')
        for row in rows:
            results = []
            for player in (lambda r: yt_gst(r, binary, out), lambda r: wavparse(r, out)):
                if os.path.exists(out):
                    os.remove(out)
                try:
                    results.append(bool(player(row)))
                except Exception as error:  # a judging failure is a failure, not a crash of the script
                    results.append(False)
            entry = table.setdefault(row.variant, [0, 0, 0])
            entry[0] += 1
            entry[1] += results[0]
            entry[2] += results[1]
            if not results[0]:
                failures.append(row.path)
            if not results[1]:
                wavparse_failures.append(row.path)

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
        print('\nwavparse failed: ' + ', '.join(wavparse_failures))
    if failures:
        print('\nyt-gst failed: ' + ', '.join(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
