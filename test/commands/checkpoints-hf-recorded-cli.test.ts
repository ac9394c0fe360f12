import path from 'node:path';
import {describe, expect, test} from 'vitest';
import {requireBuild} from '../helpers/dist.js';
import {runCli} from '../helpers/run-cli.js';

// `traintop checkpoints` as a real child process on trees the real Hugging Face Trainer wrote (transformers 5.17,
// torch 2.11: test/fixtures/frameworks/README.md). Their training_args.bin is a torch 2.x zip whose entries set flag
// bit 3 (sizes 0 in the local headers): save_total_limit and the rest are read from the central directory, and each
// setting is shown with the file it came from.

const TREES = path.resolve('test/fixtures/frameworks');

type Group = {
	rule: string;
	keep: number | null;
	source: string;
	from: string | null;
	to_prune: string[];
	keep_inferred: boolean;
	facts: {key: string; value: string; from: string; inferred: boolean}[];
	cadence: {every_steps: number | null; every_epochs: number | null; every_seconds: number | null; from: string} | null;
};
type Json = {checkpoints: {name: string; retention: string}[]; retention: {groups: Group[]}};

async function checkpoints(tree: string) {
	requireBuild();
	const run = path.join(TREES, tree);
	const text = await runCli(['checkpoints', run]);
	expect(text.code).toBe(0);
	const json = await runCli(['checkpoints', run, '--json']);
	expect(json.code).toBe(0);
	return {text: text.stdout, json: JSON.parse(json.stdout) as Json};
}

const retention = (json: Json) => Object.fromEntries(json.checkpoints.map(c => [c.name, c.retention]));

describe('traintop checkpoints on the real Hugging Face trees', () => {
	test('hf-limit2 (save_total_limit=2, save_steps=10): keep 2, checkpoint-40 goes next, every setting with its file', async () => {
		const {text, json} = await checkpoints('hf-limit2');
		expect(text).toContain(
			'retention: Hugging Face Trainer · HF save_total_limit 2 (checkpoint-50/training_args.bin); 2 counted; the next save prunes checkpoint-40',
		);
		expect(text).toContain(
			"declared: save_total_limit 2, save_strategy 'steps', save_steps 10, load_best_model_at_end False (checkpoint-50/training_args.bin); global_step 50, save_steps 10, log_history 5 entries (checkpoint-50/trainer_state.json)",
		);
		expect(text).toContain('declared cadence: every 10 steps (checkpoint-50/trainer_state.json save_steps)');
		expect(text).not.toContain('warning:');
		expect(retention(json)).toEqual({'checkpoint-40': 'prune-next', 'checkpoint-50': 'keep'});
		const [group] = json.retention.groups;
		expect(group).toMatchObject({
			keep: 2,
			source: 'metadata',
			from: 'checkpoint-50/training_args.bin save_total_limit',
			keep_inferred: false,
			cadence: {
				every_steps: 10,
				every_epochs: null,
				every_seconds: null,
				from: 'checkpoint-50/trainer_state.json save_steps',
			},
		});
		expect(group?.facts).toContainEqual({
			key: 'save_total_limit',
			value: '2',
			from: 'checkpoint-50/training_args.bin',
			inferred: false,
		});
	});

	test('hf-best (load_best_model_at_end, eval_loss): keep 2 with the best protected, the monitor declared', async () => {
		const {text, json} = await checkpoints('recorded/hf-best');
		expect(text).toContain(
			'retention: Hugging Face Trainer · HF save_total_limit 2, best protected (checkpoint-30/training_args.bin); 2 counted; the next save prunes checkpoint-25',
		);
		expect(text).toContain(
			"metric_for_best_model 'eval_loss', greater_is_better False (checkpoint-30/training_args.bin)",
		);
		expect(text).toContain("best_model_checkpoint '/tmp/trees/hf-best/checkpoint-30'");
		expect(retention(json)).toEqual({'checkpoint-25': 'prune-next', 'checkpoint-30': 'protected'});
		expect(json.retention.groups[0]?.cadence?.every_steps).toBe(5);
	});

	test('hf-nolimit-epoch (save_strategy="epoch", no limit): keeps all (None), every epoch', async () => {
		const {text, json} = await checkpoints('recorded/hf-nolimit-epoch');
		expect(text).toContain(
			'retention: Hugging Face Trainer · HF save_total_limit None: never deletes (checkpoint-12/training_args.bin); nothing is planned for deletion',
		);
		expect(text).toContain("declared: save_total_limit None, save_strategy 'epoch', load_best_model_at_end False");
		expect(text).toContain('declared cadence: every epoch (checkpoint-12/training_args.bin save_strategy)');
		expect(json.retention.groups[0]).toMatchObject({
			keep: null,
			source: 'metadata',
			cadence: {every_steps: null, every_epochs: 1, every_seconds: null},
		});
		expect(Object.values(retention(json))).toEqual(['keep', 'keep', 'keep']);
	});
});
