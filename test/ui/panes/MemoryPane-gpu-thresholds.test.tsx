import {cleanup, render} from 'ink-testing-library';
import {afterEach, expect, test} from 'vitest';
import {DEFAULT_SETTINGS} from '../../../src/config/schema.js';
import {monitorOptions} from '../../../src/config/thresholds.js';
import {Monitor} from '../../../src/core/monitor.js';
import MemoryPane from '../../../src/ui/panes/MemoryPane.js';
import {gpu, hostMemory, ScriptedSources} from '../../helpers/snapshots.js';
import {frameLines, NOW} from '../fixtures.js';

afterEach(cleanup);

test("each GPU's gauge marks and measures headroom to its own threshold", async () => {
	// The snapshot as the real Monitor makes it: GPU0 critical at 60 % by its uuid, GPU1 under the global 90 %.
	const sources = new ScriptedSources();
	const settings = {...DEFAULT_SETTINGS, gpuThresholds: new Map([['GPU-0', 60]])};
	const monitor = new Monitor(monitorOptions(settings, sources, 'node1'));
	sources.memory = hostMemory(40, null);
	sources.setGpus(gpu(0, 62), gpu(1, 62));
	const snapshot = await monitor.tick();
	const {lastFrame} = render(
		<MemoryPane
			host="node1"
			memory={snapshot.memory}
			memoryError={null}
			gpu={snapshot.gpu}
			metrics={snapshot.metrics}
			now={NOW}
			width={120}
			height={6}
		/>,
	);
	const lines = frameLines(lastFrame());
	const gpu0 = lines.find(l => l.startsWith('GPU0'))!;
	const gpu1 = lines.find(l => l.startsWith('GPU1'))!;
	// 62 % of 80 GiB: 1.6 GiB over 60 %, 22.4 GiB short of 90 %.
	expect(gpu0).toMatch(/62\.0% CRIT .*1\.6 GiB over 60%/);
	expect(gpu1).toMatch(/62\.0% ok .*22\.4 GiB to 90%/);
});
