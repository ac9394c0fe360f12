import {cpu} from './cpu.js';
import {gpu} from './gpu.js';
import type {MetricEntry} from './metric.js';
import {ram} from './ram.js';
import {swap} from './swap.js';

// Every metric traintop shows and logs, declared once (htop's Platform_meterTypes[]: a meter is one line). The
// memory pane, the headless status line and the memory-log window read this list in this order (the host's metrics,
// then the devices'); adding a metric is an entry here plus its reader (see cpu.ts). The log's keys come out in this
// order: a metric that a snapshot does not carry writes no key, so such a record keeps the bytes it always had.

export const METRICS: readonly MetricEntry[] = [ram, swap, cpu, gpu];
