// What a LightningCLI run declares about its ModelCheckpoint: SaveConfigCallback.setup writes the parsed config as
// `config.yaml` into trainer.log_dir (lightning_logs/version_N/, or default_root_dir without a logger), the parent
// of the `checkpoints` dir ModelCheckpoint.__resolve_ckpt_dir picks. The callback's settings sit under
// `trainer.callbacks` (class_path + init_args) or, with parser.add_lightning_class_args, a top-level
// `model_checkpoint` key. ModelCheckpoint.__init__'s defaults fill in what the file leaves out: save_top_k 1, mode
// min, monitor None.
// Source: Lightning-AI/pytorch-lightning src/lightning/pytorch/cli.py: SaveConfigCallback.setup;
// src/lightning/pytorch/callbacks/model_checkpoint.py: ModelCheckpoint.__init__, __validate_init_configuration.

import path from 'node:path';
import type {DeclaredRetention} from '../../core/types.js';
import {isRecord, relName, type LayoutIO, type ScanDir} from './layout.js';
import {parseYaml, yamlProblem} from './parse-yaml.js';

const CONFIG = 'config.yaml';
/** A real config is a few KiB; a bigger file named so is not LightningCLI's. */
const MAX_CONFIG_BYTES = 256 * 1024;
const MODEL_CHECKPOINT = /(?:^|\.)ModelCheckpoint$/;

export interface ConfigRead {
	readonly declared: DeclaredRetention | null;
	readonly warnings: string[];
}

const NONE: ConfigRead = {declared: null, warnings: []};

/** The init_args of every ModelCheckpoint the config names. */
function checkpointSettings(config: Record<string, unknown>): Record<string, unknown>[] {
	const settings: Record<string, unknown>[] = [];
	if (isRecord(config.model_checkpoint)) settings.push(config.model_checkpoint);
	const trainer = config.trainer;
	const callbacks = isRecord(trainer) ? trainer.callbacks : undefined;
	const list = Array.isArray(callbacks) ? callbacks : isRecord(callbacks) ? [callbacks] : [];
	for (const callback of list) {
		if (!isRecord(callback) || typeof callback.class_path !== 'string') continue;
		if (!MODEL_CHECKPOINT.test(callback.class_path)) continue;
		settings.push(isRecord(callback.init_args) ? callback.init_args : {});
	}
	return settings;
}

function declaredBy(settings: Record<string, unknown>, where: string): ConfigRead {
	const topK = settings.save_top_k ?? 1;
	if (typeof topK !== 'number' || !Number.isInteger(topK)) {
		return {declared: null, warnings: [`${where}: save_top_k ${JSON.stringify(topK)} is not a whole number`]};
	}
	const monitor = typeof settings.monitor === 'string' ? settings.monitor : null;
	const mode = settings.mode ?? 'min';
	const knownMode = mode === 'min' || mode === 'max' ? mode : null;
	return {
		declared: {
			// 0 saves no top-k checkpoint at all: nothing to rotate, so nothing declared about keep-N.
			keep: topK === -1 ? 'all' : topK >= 1 ? topK : null,
			from: `${where} save_top_k`,
			monitor: monitor === null ? null : {name: monitor, mode: knownMode, modeFrom: knownMode ? CONFIG : null},
		},
		warnings: [],
	};
}

/** config.yaml in the checkpoint dir's parent (the log dir) or in the dir itself; never above the run dir. */
function candidates(dir: ScanDir): {file: string; where: string}[] {
	const here = {file: path.join(dir.path, CONFIG), where: relName(dir, CONFIG)};
	if (dir.rel === '') return [here];
	const parentRel = path.posix.dirname(dir.rel);
	const where = parentRel === '.' ? CONFIG : `${parentRel}/${CONFIG}`;
	return [{file: path.join(path.dirname(dir.path), CONFIG), where}, here];
}

/** What the run's LightningCLI config.yaml says about ModelCheckpoint; nothing when there is none. Never throws. */
export async function readLightningConfig(dir: ScanDir, io: LayoutIO): Promise<ConfigRead> {
	for (const {file, where} of candidates(dir)) {
		const text = await io.readText(file, MAX_CONFIG_BYTES);
		if (text === null) continue;
		let config: unknown;
		try {
			config = await parseYaml(text);
		} catch (caught) {
			return {declared: null, warnings: [`${where}: not YAML (${yamlProblem(caught)})`]};
		}
		if (!isRecord(config)) continue;
		const settings = checkpointSettings(config);
		if (settings.length === 0) continue;
		if (settings.length > 1) {
			return {
				declared: null,
				warnings: [`${where}: ${settings.length} ModelCheckpoint callbacks: cannot tell which one wrote these`],
			};
		}
		return declaredBy(settings[0] ?? {}, where);
	}
	return NONE;
}
