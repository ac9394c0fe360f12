import {z} from 'zod';
import {printable} from '../format/printable.js';
import type {RankDetail} from '../ranks/detail.js';
import type {SendResult} from '../ranks/send.js';
import {snapshotMessage} from './snapshot-shape.js';
import {checkedWireValue} from './wire-values.js';
import type {WireSnapshot} from './wire-snapshot.js';

// The agent protocol: how `traintop agent` on one node talks to the traintop that shows many (docs/agent-protocol.md).
// A stable contract, as the memory log is: JSON Lines, one message a line, versioned by PROTOCOL. The agent writes
// a hello, then a snapshot per interval and an answer per command (a `reply` to a signal, a `detail` to a detail),
// on stdout; it reads commands on stdin and exits when stdin closes, so it never outlives its connection (an ssh
// session, an `srun --overlap` step).
//
// Every message names its host: through `srun` the agents of all nodes share one stream. A snapshot leaves out
// what has not changed since the agent's previous one (`ranks`, `checkpoints`, `scheduler`, `gpu_processes`: the
// heavy, slowly changing parts): absent means "as before", null means "none". A reader that has not seen one
// yet holds null.

/** Bumped on any change a reader of the previous version would misread. */
// 2: a rank set's ranks are sent once, in their jobs (`ranks.ranks` left out), and the checkpoint index is not sent
// again when only its last save aged (agent/wire-parts.ts): a reader of 1 would find no ranks.
// 3: a scan that renewed only the ranks' figures sends `rankFigures` instead of `ranks` (agent/rank-figures.ts): a
// reader of 2 would keep the ranks' old figures.
export const PROTOCOL = 3;

/** The versions this reader reads: a protocol-2 agent sends every scan's ranks whole, which 3 reads as before. */
export const READS: ReadonlySet<number> = new Set([2, PROTOCOL]);

/** The first line: who is talking, and its clock (epoch ms when written) to tell the skew from. */
export interface HelloMessage {
	readonly kind: 'hello';
	readonly protocol: number;
	readonly host: string;
	readonly version: string;
	readonly pid: number;
	readonly clock: number;
	readonly interval_ms: number;
	readonly run_dir: string | null;
}

export interface SnapshotMessage {
	readonly kind: 'snapshot';
	readonly host: string;
	readonly snapshot: WireSnapshot;
}

/** A rank as the command names it: its pid and its start time (clock ticks since boot, /proc/PID/stat field 22). */
export interface RankIdentity {
	readonly pid: number;
	readonly start_time: number;
}

/** Sends `signal` to ranks of one job on `host`, under every guard of ranks/send.ts (never forced). */
export interface SignalCommand {
	readonly kind: 'signal';
	/** Chosen by the sender; the reply carries it back. */
	readonly id: string;
	readonly host: string;
	readonly job: string;
	readonly signal: string;
	/** The ranks as the sender saw them; empty: none (the agent never widens a command to "all"). */
	readonly ranks: readonly RankIdentity[];
	/**
	 * The save the signal asks for, as the sender means it: the agent's run-dir watcher takes the next save for that
	 * kind. Absent (an older viewer): the agent's own save and emergency signals decide.
	 */
	readonly expect?: 'manual' | 'emergency';
}

/**
 * Asks for one rank's detail as the node's /proc shows it (ranks/detail.ts: the exact argv, the cwd, the launch
 * variables of rankVariables() only, each worker's RSS): only for a rank of the agent's latest scan with that identity.
 */
export interface DetailCommand extends RankIdentity {
	readonly kind: 'detail';
	/** Chosen by the sender; the answer carries it back. */
	readonly id: string;
	readonly host: string;
}

export type AgentCommand = SignalCommand | DetailCommand;

export interface ReplyMessage {
	readonly kind: 'reply';
	readonly host: string;
	readonly id: string;
	/** Per rank; a rank not (or no longer) of the job is `gone`, never signalled. */
	readonly results: readonly SendResult[];
	/** Why nothing was done at all (an unknown job, a signal traintop does not send); null otherwise. */
	readonly refused: string | null;
}

/** The answer to a detail command: a message kind of its own, so that a reply is always a signal's results. */
export interface DetailMessage {
	readonly kind: 'detail';
	readonly host: string;
	readonly id: string;
	/** null when there is none to show: `refused` says why (not a rank with that identity, exited, no scan yet). */
	readonly detail: RankDetail | null;
	readonly refused: string | null;
}

/** A line the agent could not take (not JSON, an unknown command): said, skipped, counted, never fatal. */
export interface ErrorMessage {
	readonly kind: 'error';
	readonly host: string;
	readonly message: string;
}

export type AgentMessage = HelloMessage | SnapshotMessage | ReplyMessage | DetailMessage | ErrorMessage;

const host = z.string().min(1);
const finite = z.number().finite();

const helloSchema = z.object({
	kind: z.literal('hello'),
	protocol: z.number().int(),
	host,
	version: z.string(),
	pid: z.number().int(),
	clock: finite,
	interval_ms: finite.positive(),
	run_dir: z.string().nullable(),
});

const replySchema = z.object({
	kind: z.literal('reply'),
	host,
	id: z.string(),
	results: z.array(
		z.object({
			rank: z.number().int().nullable(),
			pid: z.number().int(),
			outcome: z.enum(['sent', 'refused', 'gone', 'denied']),
			reason: z.string().nullable(),
		}),
	),
	refused: z.string().nullable(),
});

const bytes = finite.nonnegative();

// A detail is one rank's, asked for by a person: checked field by field (unlike a snapshot, it comes once).
const rankDetailSchema = z.object({
	rank: z.number().int().nullable(),
	pid: z.number().int(),
	job: z.string(),
	host: z.string(),
	argv: z.array(z.string()),
	argvExact: z.boolean(),
	cwd: z.string().nullable(),
	variables: z.array(z.object({name: z.string(), value: z.string()})).nullable(),
	signals: z.record(
		z.string(),
		z.object({
			disposition: z.enum(['handled', 'ignored', 'default']),
			blocked: z.boolean(),
			pending: z.boolean(),
			terminatesByDefault: z.boolean(),
		}),
	),
	workers: z.array(z.object({pid: z.number().int(), rssBytes: bytes.nullable(), gone: z.boolean()})),
	state: z.string(),
	stalled: z.boolean(),
	stopped: z.boolean(),
	cpuPercent: finite.nullable(),
	rssBytes: bytes.nullable(),
	gpuMemoryBytes: bytes.nullable(),
	startedAt: finite,
	readAt: finite,
});

const detailSchema = z.object({
	kind: z.literal('detail'),
	host,
	id: z.string(),
	detail: rankDetailSchema.nullable(),
	refused: z.string().nullable(),
});

const errorSchema = z.object({kind: z.literal('error'), host, message: z.string()});

// A snapshot, 64 nodes a second, is checked by hand (snapshot-shape.ts); every other message by its schema.
const messageSchema = z.discriminatedUnion('kind', [helloSchema, replySchema, detailSchema, errorSchema]);

const pid = z.number().int().positive();
const startTime = z.number().int().nonnegative();

const commandSchema = z.discriminatedUnion('kind', [
	z.object({
		kind: z.literal('signal'),
		id: z.string().min(1),
		host,
		job: z.string().min(1),
		signal: z.string().regex(/^SIG[A-Z0-9]+$/),
		ranks: z.array(z.object({pid, start_time: startTime})),
		expect: z.enum(['manual', 'emergency']).optional(),
	}),
	z.object({kind: z.literal('detail'), id: z.string().min(1), host, pid, start_time: startTime}),
]);

const AGENT_MESSAGE = 'an agent message';

const isSnapshot = (value: unknown): value is Readonly<Record<string, unknown>> =>
	typeof value === 'object' && value !== null && (value as {kind?: unknown}).kind === 'snapshot';

export type Parsed<T> =
	| {readonly ok: true; readonly value: T}
	| {
			readonly ok: false;
			readonly error: string;
			/** A message whose values are impossible (wire-values.ts): its sender is not to be trusted further. */
			readonly invalid?: true;
	  };

function parseLine<T>(line: string, schema: z.ZodType<T>, what: string, checkValues = false): Parsed<T> {
	let value: unknown;
	try {
		value = JSON.parse(line);
	} catch {
		return {ok: false, error: `not JSON: ${printable(line.slice(0, 80))}`};
	}
	if (checkValues) {
		// A detail's strings stay exact for its view (shown quoted for the shell, then made printable line by line).
		const detail = (value as {kind?: unknown} | null)?.kind === 'detail';
		const values = checkedWireValue(value, detail ? 'detail' : undefined);
		if (!values.ok) return {ok: false, error: `${what} with a value out of range: ${values.error}`, invalid: true};
		value = values.value;
	}
	if (what === AGENT_MESSAGE && isSnapshot(value)) return snapshotMessage(value) as Parsed<T>;
	const checked = schema.safeParse(value);
	if (checked.success) return {ok: true, value: checked.data};
	const issue = checked.error.issues[0];
	const where = issue && issue.path.length > 0 ? ` at ${printable(issue.path.join('.'))}` : '';
	return {ok: false, error: `not ${what}${where}: ${issue?.message ?? 'invalid'}`};
}

/** One line of an agent's stdout: its strings made printable and its numbers checked (wire-values.ts). */
export function parseAgentMessage(line: string): Parsed<AgentMessage> {
	return parseLine(line, messageSchema as z.ZodType<AgentMessage>, AGENT_MESSAGE, true);
}

/** One line of an agent's stdin. */
export function parseAgentCommand(line: string): Parsed<AgentCommand> {
	return parseLine(line, commandSchema as z.ZodType<AgentCommand>, 'an agent command');
}
