#!/usr/bin/env node
// What one checkpoint scan costs: run dirs of N checkpoints as four frameworks write them (HF Trainer dirs with
// trainer_state.json, Lightning .ckpt zips with a config.yaml, TensorFlow ckpt-N prefixes with their state file, the
// seed's step dirs with their metadata), each scanned by every layout there is. Printed side by side, in the same run:
//   - the scan + retention plan in process (what the TUI's watcher pays per rescan), median of --repeat;
//   - `traintop checkpoints DIR --json` as a process (node start-up included), median wall time;
//   - `du -sb DIR` and `ls -lR DIR`, what a person runs to look at the same dir;
//   - with --baseline CLI, an older build's `checkpoints --json` on the same dirs.
//
//   npm run build && node bench/scan.mjs [--count 200] [--repeat 7] [--baseline /tmp/old/dist/cli.js]

import {execFileSync, spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {crc32} from 'node:zlib';
import {argValue, requireAll} from './lib/proc.mjs';
import {root} from './lib/scenario.mjs';

const count = Number(argValue('--count', 200));
const repeat = Number(argValue('--repeat', 7));
const baseline = argValue('--baseline', null);
const cli = path.join(root, 'dist/cli.js');
requireAll('bench/scan', [
	['a build (npm run build)', existsSync(cli)],
	['du', spawnSync('du', ['--version']).status === 0],
	[`the baseline build ${baseline}`, baseline === null || existsSync(baseline)],
]);
const {scanRunDir} = await import(pathToFileURL(path.join(root, 'dist/checkpoints/scan.js')).href);
const {buildIndex} = await import(pathToFileURL(path.join(root, 'dist/checkpoints/retention.js')).href);

const T0 = Date.UTC(2026, 10, 1);
const KIB = 1024;

function put(file, content) {
	mkdirSync(path.dirname(file), {recursive: true});
	writeFileSync(file, typeof content === 'number' ? Buffer.alloc(content, 0x61) : content);
	return file;
}

function stamp(file, i) {
	const t = (T0 + i * 60_000) / 1000;
	utimesSync(file, t, t);
}

/** A stored zip of one member, as torch.save lays one out (what the layouts check the end record of). */
function zip(bytes) {
	const u16 = v => Buffer.from([v & 0xff, (v >> 8) & 0xff]);
	const u32 = v => {
		const b = Buffer.alloc(4);
		b.writeUInt32LE(v >>> 0);
		return b;
	};
	const name = Buffer.from('archive/data.pkl');
	const data = Buffer.alloc(bytes, 0x5a);
	const sizes = [u32(crc32(data)), u32(data.length), u32(data.length)];
	const common = [u16(20), u16(0), u16(0), u16(0), u16(0x21), ...sizes, u16(name.length), u16(0)];
	const local = Buffer.concat([u32(0x04034b50), ...common, name, data]);
	const central = Buffer.concat([u32(0x02014b50), u16(20), ...common, u16(0), u16(0), u16(0), u32(0), u32(0), name]);
	const end = [u32(0x06054b50), u16(0), u16(0), u16(1), u16(1), u32(central.length), u32(local.length), u16(0)];
	return Buffer.concat([local, central, ...end]);
}

const BUILDERS = {
	'HF Trainer': dir => {
		for (let i = 1; i <= count; i++) {
			const ckpt = path.join(dir, `checkpoint-${i * 100}`);
			put(path.join(ckpt, 'model.safetensors'), 64 * KIB);
			put(path.join(ckpt, 'optimizer.pt'), zip(32 * KIB));
			put(path.join(ckpt, 'rng_state.pth'), zip(1 * KIB));
			const history = Array.from({length: i}, (_, k) => ({loss: 2 - k / count, step: (k + 1) * 100}));
			const state = {best_model_checkpoint: `${dir}/checkpoint-100`, epoch: i / 10, global_step: i * 100};
			put(path.join(ckpt, 'trainer_state.json'), JSON.stringify({...state, log_history: history}));
			stamp(ckpt, i);
		}
	},
	Lightning: dir => {
		const ckpts = path.join(dir, 'lightning_logs/version_0/checkpoints');
		for (let i = 0; i < count; i++) {
			const loss = (1 + Math.sin(i)).toFixed(2);
			stamp(put(path.join(ckpts, `epoch=${i}-step=${(i + 1) * 100}-val_loss=${loss}.ckpt`), zip(64 * KIB)), i);
		}
		symlinkSync(
			`epoch=${count - 1}-step=${count * 100}-val_loss=${(1 + Math.sin(count - 1)).toFixed(2)}.ckpt`,
			path.join(ckpts, 'last.ckpt'),
		);
		const callback = 'trainer:\n  callbacks:\n  - class_path: lightning.pytorch.callbacks.ModelCheckpoint\n';
		put(
			path.join(dir, 'lightning_logs/version_0/config.yaml'),
			`${callback}    init_args:\n      monitor: val_loss\n      mode: min\n      save_top_k: ${count}\n`,
		);
	},
	TensorFlow: dir => {
		const paths = [];
		for (let i = 1; i <= count; i++) {
			stamp(put(path.join(dir, `ckpt-${i}.index`), 2 * KIB), i);
			stamp(put(path.join(dir, `ckpt-${i}.data-00000-of-00001`), 64 * KIB), i);
			paths.push(`ckpt-${i}`);
		}
		const lines = [`model_checkpoint_path: "ckpt-${count}"`, ...paths.map(p => `all_model_checkpoint_paths: "${p}"`)];
		put(path.join(dir, 'checkpoint'), `${lines.join('\n')}\n`);
	},
	seed: dir => {
		const entries = [];
		for (let i = 1; i <= count; i++) {
			const name = `checkpoint_step_${i * 100}_20261101_${String(i).padStart(6, '0')}`;
			const ckpt = path.join(dir, 'checkpoints', name);
			put(path.join(ckpt, 'state.pt'), zip(64 * KIB));
			put(path.join(ckpt, 'meta.json'), JSON.stringify({step: i * 100, epoch: i, kind: 'periodic'}));
			stamp(ckpt, i);
			entries.push({
				step: i * 100,
				epoch: i,
				timestamp: new Date(T0 + i * 60_000).toISOString(),
				checkpoint_path: `./checkpoints/${name}`,
				kind: 'periodic',
			});
		}
		put(
			path.join(dir, 'checkpoints/checkpoint_metadata.json'),
			JSON.stringify({checkpoints: entries, max_checkpoints: count + 1}),
		);
	},
};

function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

function wallMs(command, args) {
	const times = [];
	for (let i = 0; i < repeat; i++) {
		const start = process.hrtime.bigint();
		const result = spawnSync(command, args, {stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024});
		if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
		times.push(Number(process.hrtime.bigint() - start) / 1e6);
	}
	return median(times);
}

async function inProcessMs(dir) {
	const times = [];
	let found = 0;
	for (let i = 0; i < repeat; i++) {
		const start = process.hrtime.bigint();
		const index = buildIndex(await scanRunDir(dir), {keep: null, now: Date.now(), disk: null});
		times.push(Number(process.hrtime.bigint() - start) / 1e6);
		found = index.checkpoints.length;
	}
	return {ms: median(times), found};
}

const work = mkdtempSync(path.join(tmpdir(), 'traintop-bench-scan-'));
const rows = [];
try {
	for (const [name, build] of Object.entries(BUILDERS)) {
		const dir = path.join(work, name.replace(/\W+/g, '-'));
		mkdirSync(dir);
		build(dir);
		const files = Number(
			execFileSync('sh', ['-c', `find "${dir}" -type f | wc -l`])
				.toString()
				.trim(),
		);
		const scan = await inProcessMs(dir);
		const row = {
			'run dir': `${name}: ${scan.found} ckpts, ${files} files`,
			'scan+plan in process': `${scan.ms.toFixed(1)} ms`,
			'traintop checkpoints --json': `${wallMs(process.execPath, [cli, 'checkpoints', dir, '--json']).toFixed(0)} ms`,
		};
		if (baseline)
			row['baseline --json'] = `${wallMs(process.execPath, [baseline, 'checkpoints', dir, '--json']).toFixed(0)} ms`;
		row['du -sb'] = `${wallMs('du', ['-sb', dir]).toFixed(1)} ms`;
		row['ls -lR'] = `${wallMs('ls', ['-lR', dir]).toFixed(1)} ms`;
		rows.push(row);
	}
} finally {
	rmSync(work, {recursive: true, force: true});
}
console.log(`checkpoint scans, ${count} checkpoints per run dir, median of ${repeat} (node ${process.version})`);
console.table(rows);
