import {execFileSync} from 'node:child_process';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {makeTempDir, removeTempDirs} from '../fixtures.js';

afterEach(removeTempDirs);

// timm train.py gives CheckpointSaver its argparse Namespace (args=args, max_history=args.checkpoint_hist), and
// CheckpointSaver._save pickles it in every save beside the metric. A run dir without args.yaml and summary.csv (the
// checkpoints copied elsewhere) still says max_history and the metric through them. The saves are written by real
// torch (Debian's python3-torch) as timm 1.0.29's checkpoint_saver.py writes them: torch.save of the save_state dict
// to tmp.pth.tar, os.replace to last.pth.tar, a hard link as checkpoint-<E>.pth.tar (and model_best.pth.tar on a
// better metric), the worst deleted once max_history are kept.
const WRITER = `
import argparse, os, sys, torch
run = sys.argv[1]
args = argparse.Namespace(model='resnet18', checkpoint_hist=2, eval_metric='loss', epochs=3)
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
kept = []
best = None
for epoch, metric in enumerate([0.9, 0.5, 0.7]):
    state = {'epoch': epoch, 'arch': 'linear', 'state_dict': model.state_dict(), 'optimizer': optimizer.state_dict(),
             'version': 2, 'args': args, 'metric': metric}
    torch.save(state, os.path.join(run, 'tmp.pth.tar'))
    os.replace(os.path.join(run, 'tmp.pth.tar'), os.path.join(run, 'last.pth.tar'))
    if len(kept) < args.checkpoint_hist or metric < max(m for m, _ in kept):
        if len(kept) == args.checkpoint_hist:
            worst = max(kept)
            kept.remove(worst)
            os.remove(worst[1])
        name = os.path.join(run, 'checkpoint-%d.pth.tar' % epoch)
        os.link(os.path.join(run, 'last.pth.tar'), name)
        kept.append((metric, name))
        if best is None or metric < best:
            best = metric
            if os.path.exists(os.path.join(run, 'model_best.pth.tar')):
                os.unlink(os.path.join(run, 'model_best.pth.tar'))
            os.link(os.path.join(run, 'last.pth.tar'), os.path.join(run, 'model_best.pth.tar'))
`;

describe('timm: train.py arguments pickled in the saves (timm 1.0.29 CheckpointSaver._save)', () => {
	it('max_history from args.checkpoint_hist and lower-is-better loss from args.eval_metric: the worst goes next', async () => {
		const run = makeTempDir();
		execFileSync('/usr/bin/python3', ['-c', WRITER, run], {stdio: 'pipe', timeout: 120_000});
		const scan = await scanRunDir(run);
		const index = buildIndex(scan, {keep: null, now: Date.now(), disk: null});
		expect(scan.groups[0]?.declared).toMatchObject({
			keep: 2,
			from: 'checkpoint-2.pth.tar args.checkpoint_hist',
			monitor: {
				name: 'loss',
				mode: 'min',
				modeFrom: 'checkpoint-2.pth.tar args.eval_metric (train.py: only loss decreases)',
			},
			facts: [
				{key: 'args.checkpoint_hist', value: '2', from: 'checkpoint-2.pth.tar'},
				{key: 'args.eval_metric', value: "'loss'", from: 'checkpoint-2.pth.tar'},
			],
		});
		expect(index.retention.groups[0]).toMatchObject({rule: 'timm top-2 by loss (min)', keep: 2, source: 'metadata'});
		const marks = Object.fromEntries(index.checkpoints.map(c => [c.name, [c.metric?.value ?? null, c.retention]]));
		expect(marks).toMatchObject({
			'checkpoint-1.pth.tar': [0.5, 'keep'],
			'checkpoint-2.pth.tar': [0.7, 'prune-next'],
		});
		expect(index.warnings).toEqual([]);
		expect(path.basename(run)).toMatch(/^traintop-scan-/);
	});
});
