import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll} from 'vitest';
import {registerScheduler} from '../../../src/scheduler/registry.js';
import {type FakeJobFile, fakeScheduler} from './scheduler.js';

// The fake scheduler as a test file uses it: registered for the file's tests, reading its job from a file in a
// directory of its own that the test rewrites (a requeue, a task list), both removed after.

/** The fake's job F7, running for a minute with 20 min left, then `fields`. */
export function fakeJob(start: number, fields: Partial<FakeJobFile> = {}): FakeJobFile {
	return {
		id: 'F7',
		state: 'RUNNING',
		startTime: start - 60_000,
		restarts: 0,
		timeLeftS: 1200,
		warning: null,
		graceS: 30,
		tasks: [],
		...fields,
	};
}

export interface FakeJobPlace {
	/** The directory of the job file (the test's own files may go there too). */
	readonly dir: string;
	/** The job file the fake scheduler reads. */
	readonly file: string;
	/** Writes the job the fake scheduler reads next. */
	write(job: FakeJobFile): Promise<void>;
}

/** Registers the fake scheduler for this test file, on a job file holding `first`; `place()` once it has begun. */
export function withFakeScheduler(prefix: string, first: FakeJobFile): () => FakeJobPlace {
	let place: FakeJobPlace | null = null;
	let unregister: () => void = () => undefined;
	beforeAll(async () => {
		const dir = await mkdtemp(path.join(tmpdir(), prefix));
		const file = path.join(dir, 'job.json');
		place = {dir, file, write: job => writeFile(file, JSON.stringify(job))};
		await place.write(first);
		unregister = registerScheduler(fakeScheduler(file));
	});
	afterAll(async () => {
		unregister();
		if (place) await rm(place.dir, {recursive: true, force: true});
	});
	return () => {
		if (!place) throw new Error('the fake scheduler is registered in beforeAll: ask for its place in a test');
		return place;
	};
}
