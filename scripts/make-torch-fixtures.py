#!/usr/bin/python3
"""Writes test/fixtures/torch-files/: torch.save files of torch 1.x, and the same archive re-zipped by Python's zipfile.

Run with Debian's python3-torch (torch 1.13): /usr/bin/python3 scripts/make-torch-fixtures.py
- torch113-zip.pt     torch.save(obj): the zip format; 1.13's writer too sets flag bit 3 (local header sizes 0)
- torch113-legacy.pt  torch.save(obj, _use_new_zipfile_serialization=False): the pre-1.6 run of pickles
- deflated.pt         torch113-zip.pt's members re-written by zipfile with ZIP_DEFLATED, and an archive comment
- zip64.pt            the same members, STORED, force_zip64=True, with zipfile's ZIP64_LIMIT lowered to 16 bytes so
                      that this small file takes the path a > 2 GiB one does: zip64 extra fields in the local AND
                      central headers (sizes and offsets 0xFFFFFFFF there) and the ZIP64 end record and locator
The object holds the scalars a Lightning checkpoint keeps as 0-d tensors, one per dtype the reader decodes, and a view
into a larger storage (a non-zero storage offset).
"""
import os
import sys
import zipfile

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test', 'fixtures', 'torch-files')


def obj():
    w = torch.arange(6.0)
    return {
        'epoch': 3,
        'global_step': 120,
        'state_dict': {'w': w},
        'view': w[4],  # 0-d, storage offset 4: 4.0
        'scores': {
            'float32': torch.tensor(0.25),
            'float64': torch.tensor(0.125, dtype=torch.float64),
            'float16': torch.tensor(1.5, dtype=torch.float16),
            'bfloat16': torch.tensor(-2.5, dtype=torch.bfloat16),
            'int64': torch.tensor(7),
            'int32': torch.tensor(-9, dtype=torch.int32),
        },
        'callbacks': {
            "ModelCheckpoint{'monitor': 'train_loss', 'mode': 'min'}": {
                'best_k_models': {'/run/a.ckpt': torch.tensor(0.5), '/run/b.ckpt': torch.tensor(0.75)},
                'best_model_score': torch.tensor(0.5),
            }
        },
    }


def rezip(src, dst, **kwargs):
    with zipfile.ZipFile(src) as zin:
        members = [(info.filename, zin.read(info)) for info in zin.infolist()]
    compression = kwargs.pop('compression', zipfile.ZIP_STORED)
    force = kwargs.pop('force_zip64', False)
    comment = kwargs.pop('comment', b'')
    with zipfile.ZipFile(dst, 'w', compression=compression) as zout:
        for name, data in members:
            info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
            info.compress_type = compression
            with zout.open(info, 'w', force_zip64=force) as out:
                out.write(data)
        zout.comment = comment


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    zip_pt = os.path.join(OUT, 'torch113-zip.pt')
    torch.save(obj(), zip_pt)
    torch.save(obj(), os.path.join(OUT, 'torch113-legacy.pt'), _use_new_zipfile_serialization=False)
    rezip(zip_pt, os.path.join(OUT, 'deflated.pt'), compression=zipfile.ZIP_DEFLATED, comment=b'written by zipfile')
    zipfile.ZIP64_LIMIT = 16
    rezip(zip_pt, os.path.join(OUT, 'zip64.pt'), force_zip64=True)
    print('torch', torch.__version__, 'python', sys.version.split()[0], '->', os.path.normpath(OUT))


main()
