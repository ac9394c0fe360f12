import type {SlurmJobRecord} from './job-record.js';
import {durationSeconds, scontrolExitCode, scontrolTime, slurmExit, timeLeftSeconds} from './slurm-values.js';

// `scontrol show job -o J`: one line of Key=Value pairs per job (each task of an array on its own line). Values
// are printed unquoted (src/api/job_info.c, slurm_sprint_job_info), so a job name, a reason or a command line may
// hold spaces and even `Word=` of its own.

// Keys whose value may hold spaces, and the key that job_info.c always prints right after each: the value runs
// up to that key. (22.05: "JobName=%s UserId=", "Reason=%s Dependency=", "Command=%s" then "WorkDir=".)
const FOLLOWED_BY: Record<string, string> = {JobName: 'UserId', Reason: 'Dependency', Command: 'WorkDir'};
// A new pair starts at a space followed by a key: a capital, then letters, digits, `_`, `/` or `:`
// (MCS_label, CPUs/Task, AllocNode:Sid, ReqB:S:C:T).
const NEXT_KEY = / (?=[A-Z][A-Za-z0-9_/:]*=)/g;

/** One `-o` line → key → value. The first occurrence of a key wins: later text (a command line) cannot shadow it. */
export function scontrolFields(line: string): Map<string, string> {
	const fields = new Map<string, string>();
	let rest = line.trim();
	while (rest.length > 0) {
		const equals = rest.indexOf('=');
		if (equals <= 0) break;
		const key = rest.slice(0, equals);
		const after = rest.slice(equals + 1);
		const follower = FOLLOWED_BY[key];
		let end = follower === undefined ? -1 : after.indexOf(` ${follower}=`);
		if (end < 0) {
			NEXT_KEY.lastIndex = 0;
			end = NEXT_KEY.exec(after)?.index ?? -1;
		}
		const value = end < 0 ? after : after.slice(0, end);
		if (!fields.has(key)) fields.set(key, value.trim());
		rest = end < 0 ? '' : after.slice(end + 1);
	}
	return fields;
}

/** '(null)', 'None', 'N/A' and '' mean no value in scontrol's output. */
function present(value: string | undefined): string | null {
	if (value === undefined || value === '' || value === '(null)' || value === 'None' || value === 'N/A') return null;
	return value;
}

function count(value: string | undefined): number | null {
	const text = present(value);
	return text !== null && /^\d+$/.test(text) ? Number(text) : null;
}

/** One job line → its record; null when the line is not a job (no JobId). */
function scontrolJobRecord(line: string): SlurmJobRecord | null {
	const fields = scontrolFields(line);
	const jobId = present(fields.get('JobId'));
	if (jobId === null) return null;
	const state = fields.get('JobState') ?? 'UNKNOWN';
	const timeLimitS = durationSeconds(fields.get('TimeLimit') ?? '');
	// RunTime is the elapsed time less any suspension (job_info.c: time since start minus suspended time).
	const elapsedS = durationSeconds(fields.get('RunTime') ?? '');
	const userId = fields.get('UserId') ?? '';
	return {
		jobId,
		arrayJobId: present(fields.get('ArrayJobId')),
		arrayTaskId: present(fields.get('ArrayTaskId')),
		name: fields.get('JobName') ?? '',
		// 'root(0)' → 'root'
		user: userId.replace(/\(\d+\)$/, ''),
		partition: fields.get('Partition') ?? '',
		state,
		reason: present(fields.get('Reason')),
		nodes: present(fields.get('NodeList')) ?? '',
		batchHost: present(fields.get('BatchHost')),
		workDir: present(fields.get('WorkDir')),
		submitTime: scontrolTime(fields.get('SubmitTime') ?? ''),
		startTime: state === 'PENDING' ? null : scontrolTime(fields.get('StartTime') ?? ''),
		endTime: state === 'PENDING' ? null : scontrolTime(fields.get('EndTime') ?? ''),
		elapsedS,
		timeLimitS,
		timeLeftS: timeLeftSeconds(state, timeLimitS, elapsedS),
		restarts: count(fields.get('Restarts')) ?? 0,
		requeue: fields.get('Requeue') === '1',
		tasks: count(fields.get('NumTasks')),
		exit: slurmExit(state, ...scontrolExitCode(fields.get('ExitCode') ?? '')),
	};
}

/** Every job line of `scontrol show job -o` output. */
export function parseScontrolJobs(text: string): SlurmJobRecord[] {
	return text
		.split('\n')
		.map(scontrolJobRecord)
		.filter((record): record is SlurmJobRecord => record !== null);
}
