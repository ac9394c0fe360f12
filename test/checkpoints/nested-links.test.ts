import {execFileSync} from 'node:child_process';
import {mkdir, mkdtemp, rm, symlink, utimes, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {scanRunDir} from '../../src/checkpoints/scan.js';
import type {ScanResult} from '../../src/core/types.js';

// Links inside a checkpoint that lead out of the run dir are not followed, as top-level ones are not: before,
// `ln -s /etc/shadow run/checkpoint-100/trainer_state.json` put `root:*:…` into a warning (the JSON parser quotes
// what it could not parse). And no file's contents reach a message, whatever the file. Real files, links and FIFOs.

const SECRET = 'root:*:19500:0:99999:7:::\nSECRET-TOKEN-4711\n';

let base = '';
let run = '';
let secret = '';
beforeEach(async () => {
	base = await mkdtemp(path.join(tmpdir(), 'traintop-nested-links-'));
	run = path.join(base, 'run');
	await mkdir(run);
	secret = path.join(base, 'shadow');
	await writeFile(secret, SECRET);
});
afterEach(async () => {
	await rm(base, {recursive: true, force: true});
});

/** A Hugging Face checkpoint dir with its model; trainer_state.json is left to the test. */
async function hfCheckpoint(step: number): Promise<string> {
	const dir = path.join(run, `checkpoint-${step}`);
	await mkdir(dir);
	await writeFile(path.join(dir, 'model.safetensors'), 'x'.repeat(100));
	return dir;
}

function everyMessage(scan: ScanResult): string {
	return [...scan.warnings, ...scan.checkpoints.flatMap(c => c.warnings)].join('\n');
}

test('a trainer_state.json linked to a file outside the run dir is not read, and its contents reach no message', async () => {
	const dir = await hfCheckpoint(100);
	await symlink(secret, path.join(dir, 'trainer_state.json'));
	const scan = await scanRunDir(run);
	const messages = everyMessage(scan);
	expect(messages).not.toContain('root:');
	expect(messages).not.toContain('SECRET');
	expect(scan.warnings).toContain(
		`checkpoint-100/trainer_state.json: skipped: a symlink to ${secret}, outside the run dir: not followed`,
	);
});

test('a link through a linked subdirectory that leads outside is refused too (any part of the path)', async () => {
	const dir = await hfCheckpoint(200);
	await mkdir(path.join(base, 'elsewhere'));
	await writeFile(path.join(base, 'elsewhere', 'trainer_state.json'), SECRET);
	// checkpoint-200/state → ../../elsewhere, and trainer_state.json → state/trainer_state.json (relative, looks inside).
	await symlink(path.join('..', '..', 'elsewhere'), path.join(dir, 'state'));
	await symlink(path.join('state', 'trainer_state.json'), path.join(dir, 'trainer_state.json'));
	const messages = everyMessage(await scanRunDir(run));
	expect(messages).not.toContain('root:');
	expect(messages).toContain('outside the run dir: not followed');
});

test('a malformed JSON file inside the run dir is reported without its text', async () => {
	const dir = await hfCheckpoint(300);
	await writeFile(path.join(dir, 'trainer_state.json'), SECRET);
	await mkdir(path.join(run, 'checkpoints'));
	await writeFile(path.join(run, 'checkpoints', 'checkpoint_metadata.json'), SECRET);
	const scan = await scanRunDir(run);
	const messages = everyMessage(scan);
	expect(messages).not.toContain('root:');
	expect(messages).toContain('trainer_state.json does not parse as JSON (Unexpected character in JSON');
});

test('a link that stays inside the run dir is still followed', async () => {
	const dir = await hfCheckpoint(400);
	await writeFile(path.join(run, 'state-400.json'), JSON.stringify({global_step: 400, epoch: 1.5, log_history: []}));
	await symlink(path.join('..', 'state-400.json'), path.join(dir, 'trainer_state.json'));
	const scan = await scanRunDir(run);
	const checkpoint = scan.checkpoints.find(c => c.name === 'checkpoint-400');
	expect(checkpoint?.status).toBe('complete');
	expect(checkpoint?.epoch).toBe(1.5);
	expect(everyMessage(scan)).not.toContain('outside the run dir');
});

test('a FIFO trainer_state.json is not a complete save, and the scan does not block on it', async () => {
	const dir = await hfCheckpoint(500);
	execFileSync('mkfifo', [path.join(dir, 'trainer_state.json')]);
	const scan = await scanRunDir(run);
	const checkpoint = scan.checkpoints.find(c => c.name === 'checkpoint-500');
	expect(checkpoint?.status).toBe('partial');
	expect(checkpoint?.warnings).toContain(
		'trainer_state.json is not a regular file (never opened): not a finished save',
	);
});

test("a tag file's text is quoted only when it looks like a tag (DeepSpeed's latest, fvcore's last_checkpoint)", async () => {
	await mkdir(path.join(run, 'global_step100'));
	await writeFile(path.join(run, 'global_step100', 'mp_rank_00_model_states.pt'), 'x'.repeat(100));
	await writeFile(path.join(run, 'latest'), SECRET);
	await writeFile(path.join(run, 'last_checkpoint'), 'SECRET TOKEN 4711');
	await writeFile(path.join(run, 'model_0000999.pth'), 'x'.repeat(100));
	// Written after the tag, as the clock says (two writes within one tick of the kernel's file clock share a time):
	// fvcore's "newer than what the tag names" judgement runs, and must not quote the tag's text either.
	const later = new Date(Date.now() + 60_000);
	await utimes(path.join(run, 'model_0000999.pth'), later, later);
	const messages = everyMessage(await scanRunDir(run));
	expect(messages).toContain('`latest` names something else, not a global_step<N> tag');
	expect(messages).toContain('last_checkpoint names a file, which is not there');
	expect(messages).not.toContain('SECRET');
	expect(messages).not.toContain('root:');
});
