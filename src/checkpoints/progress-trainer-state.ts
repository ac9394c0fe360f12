// The step of a Hugging Face trainer_state.json: global_step, and the step of log_history's last entry. Pure, over
// the file's text as read (whole, or its two ends when it is large).
// What writes it (huggingface/transformers; the fixture test/fixtures/frameworks/hf-limit2 is transformers 5.17):
//   - trainer.py Trainer._save_checkpoint writes it into each output_dir/checkpoint-<global_step>/, after the model,
//     optimizer, scheduler and RNG state (so a complete checkpoint has one); trainer_pt_utils.py save_state writes
//     output_dir/trainer_state.json, which scripts call once training ends (run_clm.py and the other examples).
//   - trainer_callback.py TrainerState.save_to_json: json.dumps(asdict(state), indent=2, sort_keys=True) + "\n",
//     written in place with open(path, "w"): truncated first, so a read mid-write sees a cut file. Its keys are
//     sorted: global_step comes before log_history, whose entries sit at an indent of 6 spaces.
//   - Trainer.log appends {**logs, "step": global_step} to log_history: every entry (loss, eval_*, the final
//     train_runtime summary) holds a "step".

export interface TrainerStateSteps {
	readonly globalStep: number | null;
	/** The "step" of log_history's last entry; null when the log is empty or was not read. */
	readonly lastLogStep: number | null;
}

function wholeNumber(value: unknown): number | null {
	return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

/**
 * The steps of a whole trainer_state.json; null when it does not parse (cut mid-write: not a move, never an error
 * shown as progress) or is not an object.
 */
export function trainerStateSteps(text: string): TrainerStateSteps | null {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return null;
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
	const state = value as {global_step?: unknown; log_history?: unknown};
	const history = Array.isArray(state.log_history) ? (state.log_history as unknown[]) : [];
	const last = history.at(-1) as {step?: unknown} | undefined;
	return {globalStep: wholeNumber(state.global_step), lastLogStep: wholeNumber(last?.step)};
}

const GLOBAL_STEP = /^ {2}"global_step": (\d+),?$/m;
// log_history's entries are objects at indent 4, their keys at 6; no other top-level key nests a "step" there.
const LOG_STEP = /^ {6}"step": (\d+),?$/gm;

/**
 * The steps of a large trainer_state.json from its head and tail (sort_keys puts global_step near the top and
 * log_history's last entries near the end); null when the file does not end as save_to_json ends it, with "\n}" (a
 * cut write).
 */
export function trainerStateStepsFromEnds(head: string, tail: string): TrainerStateSteps | null {
	// Only the object's own closing brace stands at the start of a line: every inner one is indented.
	if (!/\n\}\s*$/.test(tail)) return null;
	const global = GLOBAL_STEP.exec(head)?.[1];
	const logged = [...tail.matchAll(LOG_STEP)].at(-1)?.[1];
	if (global === undefined && logged === undefined) return null;
	return {
		globalStep: global === undefined ? null : Number.parseInt(global, 10),
		lastLogStep: logged === undefined ? null : Number.parseInt(logged, 10),
	};
}

/** The step a trainer_state.json stands for: global_step, else its last logged step. */
export function trainerStateStep(steps: TrainerStateSteps): number | null {
	return steps.globalStep ?? steps.lastLogStep;
}
