import type {SchedulerKind} from '../scheduler/kind.js';
import {SLURM_KIND} from './scheduler-state.js';
import {slurmTaskJson} from './task-json.js';
import {slurmTasks} from './tasks.js';
import {slurmTaskWords} from './views/task-words.js';
import {slurmWireKey} from './wire-key.js';

// SLURM's light part (scheduler/kind.ts): its tasks and its key on the agent protocol, for scheduler/kinds.ts.

export const slurmKind: SchedulerKind = {
	kind: SLURM_KIND,
	name: 'SLURM',
	tasks: slurmTasks,
	taskJson: slurmTaskJson,
	taskWords: slurmTaskWords,
	wireKey: slurmWireKey,
};
