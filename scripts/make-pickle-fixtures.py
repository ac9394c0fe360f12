#!/usr/bin/env python3
"""Writes test/fixtures/pickles/proto<N>.pkl: one object pickled by Python's own pickler at protocols 0 to 5.

Run with any CPython 3.8+ (these were written by 3.11): python3 scripts/make-pickle-fixtures.py
Each file holds the same object; the plain values read the same at every protocol, while bytes, sets and objects take
each protocol's own form (a REDUCE of _codecs.encode, builtins.set or copyreg._reconstructor below protocol 3 or 4).
Between them they use every opcode Python's pickler emits for these values: PROTO, FRAME, MARK, STOP, the int opcodes (INT, LONG, BININT*, LONG1, LONG4),
FLOAT/BINFLOAT, every string and bytes opcode, NONE/NEWTRUE/NEWFALSE, the tuple, list, dict and set builders, the memo
(PUT/BINPUT/LONG_BINPUT/MEMOIZE, GET/BINGET/LONG_BINGET), GLOBAL/STACK_GLOBAL, REDUCE, NEWOBJ, NEWOBJ_EX and BUILD.
"""
import collections
import enum
import os
import pickle
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test', 'fixtures', 'pickles')


class Strategy(enum.Enum):
    STEPS = 'steps'


class Args:
    """Pickled as NEWOBJ (protocol 2+) or REDUCE of copyreg (0, 1) with its __dict__ as BUILD's state."""

    def __init__(self):
        self.save_total_limit = 2
        self.save_strategy = Strategy.STEPS
        self.metric_for_best_model = None


class Keyworded:
    """__getnewargs_ex__: NEWOBJ_EX at protocol 4+."""

    def __new__(cls, *args, **kwargs):
        return super().__new__(cls)

    def __getnewargs_ex__(self):
        return (1,), {'mode': 'min'}


def tree():
    shared = ['shared']
    return {
        'small': 5,
        'medium': 300,
        'negative': -70000,
        'big': 2**70,
        'huge': 2**2100,  # over 255 bytes: LONG4
        'float': 1.5,
        'text': 'héllo',
        'long_text': 'x' * 300,
        'bytes': b'\x00\x01\x02',
        'none': None,
        'yes': True,
        'no': False,
        'tuple1': (1,),
        'tuple3': (1, 2, 3),
        'tuple5': (1, 2, 3, 4, 5),
        'list': [1, 2, 3],
        'set': {7},
        'frozenset': frozenset({8}),
        'shared': [shared, shared],
        'ordered': collections.OrderedDict([('a', 1), ('b', 2)]),
        'args': Args(),
        'keyworded': Keyworded(),
        'many': list(range(300)),  # a memo past 255 entries at protocol 0-3: LONG_BINPUT / LONG_BINGET
        'many_refs': [str(i) for i in range(300)],
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    value = tree()
    value['again'] = value['many_refs'][280:]  # the same str objects: memo gets past index 255
    for protocol in range(6):
        with open(os.path.join(OUT, f'proto{protocol}.pkl'), 'wb') as f:
            pickle.dump(value, f, protocol=protocol)
    print('python', sys.version.split()[0], '->', os.path.normpath(OUT))


main()
