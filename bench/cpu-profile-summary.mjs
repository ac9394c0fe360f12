#!/usr/bin/env node
// Where a process's CPU time went, from a V8 .cpuprofile (`node --cpu-prof`): self time by function and by
// package — react-reconciler, yoga, ink (file by file: its output buffer, log-update, the renderer…), the
// ANSI string helpers (string-width, slice-ansi, wrap-ansi, cli-truncate…), traintop's own code (module by
// module), node's internals and the garbage collector. Idle time is left out of the percentages.
//
//   node bench/cpu-profile-summary.mjs PROFILE.cpuprofile [--top 25] [--from SECONDS]
//   node bench/cpu-profile-summary.mjs PROFILE.cpuprofile --callers stringWidth   # who calls it
//
// bench/profile-tui.mjs writes such a profile for the TUI in the budget's scenario and prints this summary.

import {readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {argValue} from './lib/proc.mjs';

/** The ANSI / width helpers Ink measures and cuts every Text with: one group, as the issue asks. */
const STRING_PACKAGES = new Set([
	'string-width',
	'slice-ansi',
	'wrap-ansi',
	'cli-truncate',
	'strip-ansi',
	'ansi-regex',
	'ansi-styles',
	'emoji-regex',
	'get-east-asian-width',
	'is-fullwidth-code-point',
	'widest-line',
	'indent-string',
	'chalk',
]);

/** `node_modules/@scope/name/…` or `node_modules/name/…` → the package's name; null outside node_modules. */
function packageOf(url) {
	const at = url.lastIndexOf('/node_modules/');
	if (at < 0) return null;
	const parts = url.slice(at + '/node_modules/'.length).split('/');
	return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** The group a function's self time is counted in, and a finer one (ink's file, traintop's module folder). */
function groupOf({functionName, url}) {
	if (url === '') {
		if (functionName === '(garbage collector)') return ['GC', 'GC'];
		if (functionName === '(idle)') return ['(idle)', '(idle)'];
		if (functionName === '(program)') return ['(program: V8/native, not JS)', '(program)'];
		if (functionName === '(root)') return ['(root)', '(root)'];
		return ['native / builtins', functionName || '(anonymous)'];
	}
	if (url.startsWith('node:')) return ['node internals', url];
	if (url.startsWith('wasm://')) return ['yoga-layout', 'yoga (wasm)'];
	const pkg = packageOf(url);
	if (pkg === 'ink') {
		const file = url.slice(url.lastIndexOf('/node_modules/ink/') + '/node_modules/ink/'.length);
		return ['ink', `ink/${file}`];
	}
	if (pkg !== null && STRING_PACKAGES.has(pkg)) return ['string-width/slice-ansi/wrap-ansi & co', pkg];
	if (pkg !== null) return [pkg, pkg];
	const file = url.startsWith('file://') ? fileURLToPath(url) : url;
	const dist = file.lastIndexOf('/dist/');
	if (dist >= 0) {
		const rel = file.slice(dist + '/dist/'.length);
		return ['traintop', `traintop ${path.dirname(rel)}/`];
	}
	return ['other', file];
}

/** Self microseconds per profile node, from the samples (those `fromUs` or later) and their time deltas. */
function selfTimes(profile, fromUs) {
	const self = new Map();
	const {samples, timeDeltas} = profile;
	let t = profile.startTime;
	for (let i = 0; i < samples.length; i++) {
		t += timeDeltas[i];
		if (t - profile.startTime < fromUs) continue;
		// timeDeltas[i] is the time before sample i; the sample's own duration is the next delta.
		const dt = timeDeltas[i + 1] ?? 0;
		self.set(samples[i], (self.get(samples[i]) ?? 0) + dt);
	}
	return self;
}

/** `fromS`: leave out the first seconds (start-up: module loading, the first samples). */
export function summarise(profile, fromS = 0) {
	const fromUs = Math.min(fromS * 1e6, profile.endTime - profile.startTime);
	const self = selfTimes(profile, fromUs);
	const byFunction = new Map();
	const byGroup = new Map();
	const byDetail = new Map();
	let busy = 0;
	let idle = 0;
	for (const node of profile.nodes) {
		const us = self.get(node.id) ?? 0;
		if (us === 0) continue;
		const [group, detail] = groupOf(node.callFrame);
		if (group === '(idle)') {
			idle += us;
			continue;
		}
		busy += us;
		const {functionName, url, lineNumber} = node.callFrame;
		const where = url ? `${path.basename(url)}:${lineNumber + 1}` : '';
		const key = `${functionName || '(anonymous)'} ${where}`;
		const entry = byFunction.get(key) ?? {name: functionName || '(anonymous)', where, group: detail, us: 0};
		entry.us += us;
		byFunction.set(key, entry);
		byGroup.set(group, (byGroup.get(group) ?? 0) + us);
		byDetail.set(detail, (byDetail.get(detail) ?? 0) + us);
	}
	const wallUs = profile.endTime - profile.startTime - fromUs;
	const sorted = map => [...map.entries()].sort((a, b) => b[1] - a[1]);
	return {
		fromS: fromUs / 1e6,
		wallS: wallUs / 1e6,
		busyS: busy / 1e6,
		idleS: idle / 1e6,
		groups: sorted(byGroup),
		details: sorted(byDetail),
		functions: [...byFunction.values()].sort((a, b) => b.us - a.us),
	};
}

export function formatSummary(summary, top = 25) {
	const {fromS, wallS, busyS, groups, details, functions} = summary;
	const pct = us => `${((us / 1e6 / busyS) * 100).toFixed(1).padStart(5)} %`;
	const ms = us => `${(us / 1000).toFixed(0).padStart(7)} ms`;
	const out = [];
	out.push(
		`profile: ${wallS.toFixed(1)} s of wall time${fromS > 0 ? ` from ${fromS} s on` : ''}, ${busyS.toFixed(2)} s busy on the main thread ` +
			`(${((busyS / wallS) * 100).toFixed(2)} % of a core; GC and V8 helper threads' own time are not sampled)`,
	);
	out.push('', 'self time by package (% of busy)');
	for (const [group, us] of groups) out.push(`  ${pct(us)} ${ms(us)}  ${group}`);
	out.push('', `self time by file / module (top ${top})`);
	for (const [detail, us] of details.slice(0, top)) out.push(`  ${pct(us)} ${ms(us)}  ${detail}`);
	out.push('', `top ${top} functions by self time`);
	for (const f of functions.slice(0, top)) out.push(`  ${pct(f.us)} ${ms(f.us)}  ${f.name}  (${f.group} ${f.where})`);
	return out.join('\n');
}

/**
 * Who calls `name`: its self time split by the chain of its nearest `depth` callers, busiest first — to
 * tell, say, string-width's calls from Ink's layout apart from those of its output grid.
 */
export function callersOf(profile, name, fromS = 0, depth = 3) {
	const self = selfTimes(profile, Math.min(fromS * 1e6, profile.endTime - profile.startTime));
	const parent = new Map();
	for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
	const byChain = new Map();
	let total = 0;
	for (const node of profile.nodes) {
		const us = self.get(node.id) ?? 0;
		if (us === 0 || node.callFrame.functionName !== name) continue;
		total += us;
		const chain = [];
		for (let p = parent.get(node.id); p && chain.length < depth; p = parent.get(p.id)) {
			const {functionName, url, lineNumber} = p.callFrame;
			chain.push(`${functionName || '(anonymous)'}${url ? ` ${path.basename(url)}:${lineNumber + 1}` : ''}`);
		}
		const key = chain.join(' ← ');
		byChain.set(key, (byChain.get(key) ?? 0) + us);
	}
	const lines = [`${name}: ${(total / 1000).toFixed(0)} ms of self time, by caller`];
	for (const [chain, us] of [...byChain].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
		lines.push(`  ${((us / total) * 100).toFixed(1).padStart(5)} %  ← ${chain}`);
	}
	return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
	const file = process.argv[2];
	if (!file || file.startsWith('--')) {
		console.error('usage: node bench/cpu-profile-summary.mjs PROFILE.cpuprofile [--top N] [--from SECONDS]');
		process.exit(2);
	}
	const profile = JSON.parse(readFileSync(file, 'utf8'));
	const fromS = Number(argValue('--from', '0'));
	const callers = argValue('--callers', null);
	console.log(
		callers === null
			? formatSummary(summarise(profile, fromS), Number(argValue('--top', '25')))
			: callersOf(profile, callers, fromS),
	);
}
