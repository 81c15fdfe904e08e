// Types of proc.mjs (plain JavaScript, so that the run guard can run it with a bare `node`).

/** The owner marker's file name inside a run dir. */
export declare const OWNER_MARKER: 'kovn-owner.json';

/** The file of a run dir listing the network namespaces of the run (one a line). */
export declare const NETNS_LIST: 'kovn-netns';

/** Who owns a run dir: a process, named so that a reused pid or a reboot is never taken for it. */
export interface Owner {
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot). */
  readonly start: string;
  /** /proc/sys/kernel/random/boot_id. */
  readonly boot: string;
  /** The pid namespace (`pid:[N]`): a pid means nothing in another one. */
  readonly pidns: string;
}

/** State (field 3) and start time (field 22) of /proc/<pid>/stat. */
export interface ProcStat {
  readonly state: string;
  readonly start: string;
}

/**
 * What /proc says of a pid: its stat, 'gone' (no such process), or
 * 'no-proc' (/proc cannot be read here).
 *
 * @example
 * const s = procStat(pid); // { state: 'S', start: '123456' }
 */
export declare function procStat(pid: number): ProcStat | 'gone' | 'no-proc';

/**
 * True while `pid` runs with start time `start`: it exists, is not a zombie,
 * and is the same process (a reused pid is not). `start` '' (unknown) takes
 * any process with that pid; without /proc, `kill -0` decides.
 *
 * @example
 * isRunning(daemon.pid, daemon.start); // false once it exited, even if its pid is reused
 */
export declare function isRunning(pid: number, start: string): boolean;

/**
 * This process as an owner, or undefined without /proc (then there is no guard and no marker).
 *
 * @example
 * const me = selfOwner(); // { pid: 4242, start: '123456', boot: '5f0c…', pidns: 'pid:[4026531836]' }
 */
export declare function selfOwner(): Owner | undefined;

/**
 * Writes the owner marker into a run dir.
 *
 * @example
 * writeOwnerMarker(dir, owner); // dir/kovn-owner.json
 */
export declare function writeOwnerMarker(dir: string, owner: Owner): void;

/**
 * The parsed owner marker of a dir, or undefined where there is none or it is not JSON (not checked further).
 *
 * @example
 * readOwnerMarker(dir)?.pid;
 */
export declare function readOwnerMarker(dir: string): unknown;

/**
 * The live processes of `programs` (by /proc/<pid>/comm) whose command line
 * names one of `inDirs` (the dir itself or a path inside it), this process
 * excepted: the one-shot tools and the detached daemon being launched that
 * write into a run's dirs without being tracked by pid.
 *
 * @example
 * processesNaming(['/tmp/kovn-cp-Ab12Cd'], new Set(['ovsdb-tool'])); // [{ pid: 4243, start: '123460' }]
 */
export declare function processesNaming(
  inDirs: readonly string[],
  programs: ReadonlySet<string>,
): { pid: number; start: string }[];

/**
 * SIGKILLs each target still running, then waits (at most `waitMs`) until
 * none runs. Synchronous on purpose: 'exit' listeners cannot await.
 *
 * @example
 * killAllSync([{ pid: 4242, start: '123456' }], 2_000);
 */
export declare function killAllSync(
  targets: readonly { readonly pid: number; readonly start: string }[],
  waitMs: number,
): void;

/**
 * Removes a dir and what it holds; a failure is left for a later try.
 *
 * @example
 * removeDirSync(dir);
 */
export declare function removeDirSync(dir: string): void;

/**
 * Deletes the network namespaces a run dir lists in {@link NETNS_LIST}
 * (removeDirSync does it before removing the dir).
 *
 * @example
 * removeNetnsOfSync(dir);
 */
export declare function removeNetnsOfSync(dir: string): void;
