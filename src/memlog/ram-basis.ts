import {cgroupLimitWords} from '../core/ram-limit.js';
import {formatBytes} from '../format/units.js';
import {type MetricSeries, recordOf} from './metric-series.js';
import {RAM_AGAINST, type Series} from './series-types.js';

// What `--analyze` judged the `ram` metric against: per record, the job's cgroup limit where the record has one
// (`memory.cgroup`, what the live alerts judged), else the host's total RAM. A log where a limit appeared (traintop
// restarted inside a job, an older traintop before) mixes both, and the report says so.

export interface RamBasis {
	/** Points judged against a cgroup limit. */
	readonly cgroup_samples: number;
	/** Points judged against the host's total RAM. */
	readonly host_samples: number;
	/** 'job': the ranks' cgroup in any point; 'traintop': only traintop's own (a container); null: no cgroup. */
	readonly scope: 'job' | 'traintop' | null;
	/** The smallest and largest cgroup limit seen, GiB; null without a cgroup point. */
	readonly limit_min_gb: number | null;
	readonly limit_max_gb: number | null;
}

const GIB = 1024 ** 3;

export function ramBasisOf(metric: MetricSeries, series: Series): RamBasis {
	let cgroup = 0;
	let job = false;
	let min = Number.POSITIVE_INFINITY;
	let max = Number.NEGATIVE_INFINITY;
	for (let i = 0; i < metric.count; i++) {
		const r = recordOf(metric, i);
		const against = series.ramAgainst.at(r);
		if (against === RAM_AGAINST.host) continue;
		cgroup++;
		if (against === RAM_AGAINST.jobCgroup) job = true;
		const limit = series.ramLimitGb.at(r);
		if (limit < min) min = limit;
		if (limit > max) max = limit;
	}
	return {
		cgroup_samples: cgroup,
		host_samples: metric.count - cgroup,
		scope: cgroup === 0 ? null : job ? 'job' : 'traintop',
		limit_min_gb: cgroup === 0 ? null : min,
		limit_max_gb: cgroup === 0 ? null : max,
	};
}

/**
 * "RAM", "RAM (job cgroup limit 64.0 GiB)", "RAM (job cgroup limit 32.0 GiB–64.0 GiB)", or for a mixed log
 * "RAM (job cgroup limit 64.0 GiB; host RAM in 40 of 100 samples)".
 */
export function ramLabel(basis: RamBasis): string {
	if (basis.scope === null || basis.limit_min_gb === null || basis.limit_max_gb === null) return 'RAM';
	let limit = cgroupLimitWords(basis.scope, basis.limit_min_gb * GIB);
	if (basis.limit_max_gb !== basis.limit_min_gb) limit += `–${formatBytes(basis.limit_max_gb * GIB)}`;
	const total = basis.cgroup_samples + basis.host_samples;
	const mixed = basis.host_samples > 0 ? `; host RAM in ${basis.host_samples} of ${total} samples` : '';
	return `RAM (${limit}${mixed})`;
}
