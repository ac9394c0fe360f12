import {execFile} from 'node:child_process';
import {mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {promisify} from 'node:util';
import {expect, test} from 'vitest';

// The code's shape, checked as anyone can run it: no file in src/ over 300 lines (small files, one job each), and
// the lint's circularity check (biome.jsonc's noImportCycles) refusing an import circle, type-only ones included.

const ROOT = path.resolve(import.meta.dirname, '..');
const MAX_LINES = 300;

async function sourceFiles(dir: string): Promise<string[]> {
	const entries = await readdir(dir, {withFileTypes: true});
	const nested = await Promise.all(
		entries.map(entry => {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory()) return sourceFiles(full);
			return Promise.resolve(/\.tsx?$/.test(entry.name) ? [full] : []);
		}),
	);
	return nested.flat();
}

async function linesOf(file: string): Promise<number> {
	const text = await readFile(file, 'utf8');
	return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

test(`no file in src/ over ${MAX_LINES} lines`, async () => {
	const sizes = await Promise.all(
		(await sourceFiles(path.join(ROOT, 'src'))).map(async file => ({
			file: path.relative(ROOT, file),
			lines: await linesOf(file),
		})),
	);
	const over = sizes.filter(s => s.lines > MAX_LINES);
	const named = (list: typeof over) => list.map(s => `${s.file} (${s.lines})`).sort();
	expect(named(over), 'files over the limit').toEqual([]);
});

test('the lint refuses an import circle, a type-only one too', async () => {
	// The project's own setting of the rule, in a scratch project of two files that import each other's types.
	const config = await readFile(path.join(ROOT, 'biome.jsonc'), 'utf8');
	const setting = /"noImportCycles":\s*(\{[^}]*\{[^}]*\}\s*\})/.exec(config);
	expect(setting, 'biome.jsonc sets noImportCycles').not.toBeNull();
	const dir = await mkdtemp(path.join(tmpdir(), 'traintop-cycle-'));
	try {
		const rules = `{"linter": {"rules": {"suspicious": {"noImportCycles": ${setting![1]}}}}}`;
		await writeFile(path.join(dir, 'biome.json'), rules);
		await writeFile(path.join(dir, 'a.ts'), "import type {B} from './b.js';\nexport interface A {\n\tb: B;\n}\n");
		await writeFile(path.join(dir, 'b.ts'), "import type {A} from './a.js';\nexport interface B {\n\ta: A;\n}\n");
		const biome = path.join(ROOT, 'node_modules', '.bin', 'biome');
		const run = promisify(execFile)(biome, ['lint', '--only=suspicious/noImportCycles', '.'], {cwd: dir});
		const failed = await run.then(
			() => null,
			(error: {code?: number; stdout?: string; stderr?: string}) => error,
		);
		expect(failed?.code, 'biome lint exits 1 on the circle').toBe(1);
		expect(`${failed?.stdout}${failed?.stderr}`).toMatch(/a\.ts[\s\S]*noImportCycles/);
	} finally {
		await rm(dir, {recursive: true, force: true});
	}
}, 120_000);
