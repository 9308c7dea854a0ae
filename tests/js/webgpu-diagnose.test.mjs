// The prepared WebGPU benchmark's "why no adapter" (scripts/lib/webgpu-diagnose.mjs): each missing piece on the path
// from Dawn to a GPU is named with what to do, from injected facts (no GPU needed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gatherFacts, explainNoAdapter, dawnWarnings, WEBGPU_PACKAGE } from '../../scripts/lib/webgpu-diagnose.mjs';

const LDCONFIG_WITH_LOADER = '\tlibvulkan.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libvulkan.so.1\n';

function machine({ ldconfig = '', files = {}, env = {}, smi = null } = {}) {
  return gatherFacts({
    env,
    exists: (p) => Object.values(files).flat().some((f) => p.endsWith(f)) || p in files,
    readDir: (d) => files[d] ?? [],
    run: (cmd) => (cmd === 'ldconfig' ? ldconfig : cmd === 'nvidia-smi' ? smi : null),
  });
}

test('a bare container: no loader, no driver manifest, no device — three findings, each saying what to do', () => {
  const facts = machine();
  assert.deepEqual(facts, { loader: false, ldconfigRan: false, icds: [], devices: [], nvidiaSmi: [] });
  const why = explainNoAdapter({ facts });
  assert.equal(why.length, 3);
  assert.match(why[0], /libvulkan\.so\.1.*apt-get install libvulkan1/);
  assert.match(why[1], /VK_DRIVER_FILES/);
  assert.match(why[2], /no GPU/);
});

test('a GPU machine whose loader is missing: only the loader is named, and nvidia-smi is quoted', () => {
  const facts = machine({
    files: { '/usr/local/nvidia/share/vulkan/icd.d': ['nvidia_icd.json'], '/dev': ['nvidia0', 'nvidiactl', 'null'] },
    smi: 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-x)\n',
  });
  assert.deepEqual(facts.devices, ['/dev/nvidia0']);
  assert.deepEqual(facts.icds.map((i) => i.path), ['/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json']);
  const why = explainNoAdapter({ facts, dawnStderr: "Warning: Couldn't load Vulkan: libvulkan.so.1: cannot open shared object file\n    at operator() (/x/BackendVk.cpp:368)\n" });
  assert.equal(why[0], "Dawn said: \"Warning: Couldn't load Vulkan: libvulkan.so.1: cannot open shared object file\"");
  assert.match(why[1], /libvulkan\.so\.1 is not installed/);
  assert.ok(!why.some((s) => /manifest|no GPU/.test(s)), why.join('\n'));
  assert.match(why.at(-1), /NVIDIA H100/);
});

test('VK_DRIVER_FILES naming a missing file is said; everything present yet no adapter points at the driver', () => {
  const missing = explainNoAdapter({ facts: machine({ ldconfig: LDCONFIG_WITH_LOADER, env: { VK_DRIVER_FILES: '/nope/icd.json' }, files: { '/dev/dri': ['renderD128'] } }) });
  assert.deepEqual(missing.length, 2);
  assert.match(missing[0], /VK_DRIVER_FILES names \/nope\/icd\.json, which does not exist/);
  assert.match(missing[1], /No Vulkan driver manifest/);
  const present = explainNoAdapter({ facts: machine({ ldconfig: LDCONFIG_WITH_LOADER, files: { '/etc/vulkan/icd.d': ['x_icd.json'], '/dev/dri': ['renderD128'] } }) });
  assert.equal(present.length, 1);
  assert.match(present[0], /all present, yet Dawn found no adapter.*VK_LOADER_DEBUG/);
});

test('the package missing is the one finding; nothing known is still a sentence', () => {
  assert.deepEqual(explainNoAdapter({ packageMissing: true, facts: machine() }).length, 1);
  assert.match(explainNoAdapter({ packageMissing: true })[0], new RegExp(`npm install --no-save ${WEBGPU_PACKAGE.replace('.', '\\.')}`));
  assert.deepEqual(explainNoAdapter({}), ['Dawn gave no adapter and said nothing about why.']);
  assert.deepEqual(dawnWarnings('noise\n  Error: no suitable backends found\nWarning: x\n'), ['Error: no suitable backends found', 'Warning: x']);
});
