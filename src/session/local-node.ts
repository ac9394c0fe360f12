import {hostname} from 'node:os';
import path from 'node:path';
import {CheckpointWatcher} from '../checkpoints/watch.js';
import type {Settings} from '../config/schema.js';
import type {CheckpointIndex} from '../core/types.js';
import {monitorOptions} from '../config/thresholds.js';
import {Monitor, type MonitorSources} from '../core/monitor.js';
import {MemoryLogRecorder} from '../memlog/recorder.js';
import {RankSampler} from '../ranks/discover.js';
import {WaitReader} from '../ranks/rank-waits.js';
import {JobMemoryReader} from '../ranks/job-memory.js';
import {NcclRasPoller} from '../system/nccl-ras-poller.js';
import {GpuUnseenReader} from '../system/gpu-unseen.js';
import {HostConsumersReader} from '../system/host-consumers.js';
import {StepSignalReader} from '../checkpoints/progress-reader.js';
import type {RankSelector} from '../ranks/tree.js';
import {hostCpuReader} from '../system/cpu.js';
import {readHostMemory} from '../system/memory.js';
import {openGpuBackend} from '../system/gpu-backend.js';
import {procReader} from '../system/procfs.js';
import {followJob, jobOfTraintop} from '../scheduler/registry.js';
import type {ScheduledJob} from '../scheduler/task.js';
import {sessionActions} from './actions.js';
import {logPathFrom} from './log-path.js';
import type {LocalSession} from './types.js';

// This machine as the one node: the readers, the Monitor, the run dir's watcher, the memory-log recorder and the
// actions, built once from the settings.

export interface LocalNodeOptions {
	readonly settings: Settings;
	/** RUN_DIR; it may not exist yet (it is waited for); null without one (no checkpoints, the log in '.'). */
	readonly runDir: string | null;
	/** Which processes are the job's ranks. */
	readonly selector: RankSelector;
	readonly host?: string;
	/** The scheduler's job to follow (its job flag, else the job traintop runs in); null outside one. */
	readonly scheduledJob?: ScheduledJob | null;
	/** Replaces the host readers: tests script memory and the GPU; the ranks and the run dir stay real. */
	readonly sources?: Pick<MonitorSources, 'readMemory' | 'gpu'>;
}

/** Builds the local node's session; its memory log is opened first (an unwritable path fails here). */
export async function openLocalNode(options: LocalNodeOptions): Promise<LocalSession> {
	const {settings, runDir} = options;
	const host = options.host ?? hostname();
	const logPath = logPathFrom(settings, runDir);
	const recorder = new MemoryLogRecorder({
		logPath,
		logIntervalMs: settings.logInterval * 1000,
		sampleIntervalMs: settings.interval * 1000,
		gpuThreshold: settings.gpuThreshold,
	});
	const nvidiaSmi = options.sources
		? null
		: openGpuBackend({
				command: settings.nvidiaSmi,
				intervalMs: settings.interval * 1000,
				processIntervalMs: settings.gpuProcessInterval * 1000,
			});
	const gpu = options.sources?.gpu ?? nvidiaSmi!;
	const ranks = new RankSampler({
		proc: procReader(),
		selector: options.selector,
		host,
		stallAfterMs: settings.stallAfter * 1000,
		// Inside a scheduler's job (or with its job flag) only that job's tasks are ranks; the RUN_DIR names one job.
		scheduledJob: options.scheduledJob ?? jobOfTraintop(),
		runDir: runDir && path.resolve(runDir),
	});
	const waits = new WaitReader(procReader());
	const jobMemory = new JobMemoryReader(procReader());
	// NCCL's RAS service: asked every 15 s while it answers, once a minute while nothing does; never depended on.
	const ncclRas = settings.ncclRas === 'off' ? null : new NcclRasPoller({address: settings.ncclRas});
	ncclRas?.start();
	// GPU memory no visible process holds: judged when a new process table comes, from /proc.
	const gpuUnseen = new GpuUnseenReader();
	// The host's largest processes that are not the job: read only while the host is short of RAM, every 10 s.
	const hostConsumers = new HostConsumersReader();
	// The run dir's step files and --progress-file: read in the background, never holding a tick.
	const steps =
		runDir !== null || settings.progressFile !== null
			? new StepSignalReader({runDir: runDir && path.resolve(runDir), progressFile: settings.progressFile})
			: null;
	// With a RUN_DIR the snapshot carries its checkpoints. Sampling does not wait for the first scan (a run dir of
	// 100k files held the first status line back 5–10 s): until it ends, the index says it is scanning.
	const checkpoints = runDir
		? new CheckpointWatcher({
				runDir: path.resolve(runDir),
				keep: settings.keep,
				poll: settings.poll > 0 ? {intervalMs: settings.poll * 1000} : null,
			})
		: null;
	checkpoints?.start().catch((error: unknown) => {
		checkpoints.lastError = error;
	});
	nvidiaSmi?.start();
	// The scheduler is read on its own slow cadence (never per tick: a controller is shared), in the background.
	const scheduler = options.scheduledJob ? followJob(options.scheduledJob) : null;
	scheduler?.start?.();
	const sources: MonitorSources = {
		readMemory: options.sources?.readMemory ?? readHostMemory,
		// Real in tests too: the host's CPU is not what tests script.
		readCpu: hostCpuReader(),
		gpu,
		readRanks: async gpuProcesses => {
			const set = await ranks.sample(gpuProcesses);
			// Per-process GPU memory is wanted only for the ranks' GPU column.
			nvidiaSmi?.setProcessQueries(set.ranks.length > 0);
			return set;
		},
		readWaits: set => waits.read(set),
		readJobMemory: set => jobMemory.read(set),
		...(ncclRas ? {ncclRas} : {}),
		readGpuUnseen: (state, table) => gpuUnseen.read(state, table),
		readHostConsumers: (set, short) => hostConsumers.read(set, short),
		...(steps ? {readSteps: (index: CheckpointIndex | null) => steps.read(index)} : {}),
		...(checkpoints ? {checkpoints} : {}),
		...(scheduler ? {scheduler} : {}),
	};
	const monitor = new Monitor(monitorOptions(settings, sources, host));
	const unsubscribe = monitor.subscribe(snapshot => recorder.add(snapshot));
	let closed = false;
	return {
		kind: 'local',
		settings,
		host,
		onSnapshot: listener => monitor.subscribe(snapshot => listener(host, snapshot)),
		recorders: new Map([[host, recorder]]),
		readonly: settings.readonly,
		monitor,
		recorder,
		actions: sessionActions({settings, proc: procReader(), checkpoints, logPath}),
		start: () => monitor.start(),
		close: async () => {
			if (closed) return;
			closed = true;
			monitor.stop();
			scheduler?.stop?.();
			ncclRas?.stop();
			unsubscribe();
			recorder.close();
			await Promise.all([nvidiaSmi?.stop(), checkpoints?.stop()]);
		},
		killNow: () => nvidiaSmi?.killNow(),
	};
}
