import type {SchedulerWireKey} from '../scheduler/types.js';
import {slurmState} from './scheduler-state.js';
import type {SlurmView} from './types.js';

// The agent protocol's `slurm` key, from before the scheduler seam: the SlurmView, rebuilt into the state. Its own
// file, apart from the SLURM entry: the protocol reads it, and the entry reaches the signal plan and the transports,
// which read the protocol.

export const slurmWireKey: SchedulerWireKey = {
	key: 'slurm',
	fromWire: (value, neutral) =>
		value === null || value === undefined ? neutral : slurmState(value as SlurmView, neutral?.jobId),
};
