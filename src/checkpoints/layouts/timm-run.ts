import type {DeclaredRetention, MonitorSetting} from '../../core/types.js';

// What timm's layout read of a run (args.yaml, summary.csv): timm.ts reads it, timm-declared.ts adds what the
// checkpoints themselves declare.

export interface TimmRun {
	readonly declared: DeclaredRetention | null;
	readonly monitor: MonitorSetting;
	/** Epoch → the score train.py passed to save_checkpoint for it. */
	readonly scores: ReadonlyMap<number, number>;
	/** First epoch of the latest process when summary.csv shows a restart; its saver never saw older checkpoints. */
	readonly resumedAt: number | null;
	/** args.yaml or summary.csv is there: train.py wrote the run, and its rules (eval_metric top1) apply. */
	readonly trainPy: boolean;
	readonly hasArgs: boolean;
	readonly warnings: string[];
}
