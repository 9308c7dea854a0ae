// webgpu-diagnose.mjs — why Node has no WebGPU adapter (issue 31's prepared GPU benchmark,
// tests/bench/bench-webgpu-node.mjs), in sentences a person can act on.
//
// Contract:
//   gatherFacts({ env, exists, readDir, run }) → facts: what the machine shows about the path Dawn (the npm package
//     `webgpu`) takes to a GPU on Linux: the Vulkan loader (libvulkan.so.1 in `ldconfig -p`), the driver's ICD
//     manifests (VK_DRIVER_FILES / VK_ICD_FILENAMES, else the standard folders), the GPU's device nodes
//     (/dev/nvidia*, /dev/dri/renderD*) and `nvidia-smi -L`. The four callbacks are injected (Node's fs and
//     child_process in the script, fakes in tests/js/webgpu-diagnose.test.mjs); none of them may throw.
//   explainNoAdapter({ packageMissing, dawnStderr, facts, adapterError }) → string[]: one sentence per finding,
//     most basic first (the package, the loader, the driver, the device), each with what to do; Dawn's own
//     warnings are quoted (its first lines); never empty.
//   dawnWarnings(stderr) → string[]: the "Warning: …" / "Error: …" lines of Dawn's output, without its source paths.
export const WEBGPU_PACKAGE = 'webgpu@0.6.2';

export const ICD_DIRS = Object.freeze([
  '/usr/share/vulkan/icd.d', '/etc/vulkan/icd.d', '/usr/local/share/vulkan/icd.d', '/usr/local/nvidia/share/vulkan/icd.d',
]);

export function gatherFacts({ env = {}, exists = () => false, readDir = () => [], run = () => null } = {}) {
  const ldconfig = run('ldconfig', ['-p']) ?? run('/sbin/ldconfig', ['-p']) ?? '';
  const listed = (env.VK_DRIVER_FILES || env.VK_ICD_FILENAMES || '').split(':').filter(Boolean);
  const icds = listed.length
    ? listed.map((p) => ({ path: p, exists: exists(p), fromEnv: true }))
    : ICD_DIRS.flatMap((d) => readDir(d).filter((f) => f.endsWith('.json')).map((f) => ({ path: `${d}/${f}`, exists: true, fromEnv: false })));
  const devices = [...readDir('/dev').filter((f) => /^nvidia\d+$/.test(f)).map((f) => `/dev/${f}`),
    ...readDir('/dev/dri').filter((f) => f.startsWith('renderD')).map((f) => `/dev/dri/${f}`)];
  const smi = run('nvidia-smi', ['-L']);
  return {
    loader: /libvulkan\.so\.1\b/.test(ldconfig),
    ldconfigRan: ldconfig !== '',
    icds,
    devices,
    nvidiaSmi: smi ? smi.trim().split('\n').filter(Boolean) : [],
  };
}

export function dawnWarnings(stderr) {
  return String(stderr ?? '').split('\n').map((l) => l.trim())
    .filter((l) => /^(Warning|Error)\b/.test(l))
    .map((l) => l.replace(/\s+at\s+\S+\s+\(.*\)$/, ''));
}

export function explainNoAdapter({ packageMissing = false, dawnStderr = '', facts = null, adapterError = null } = {}) {
  const why = [];
  if (packageMissing) {
    why.push(`The npm package \`webgpu\` (Dawn for Node) is not installed; it is not a dependency of attnlab (132 MB): ` +
      `\`npm install --no-save ${WEBGPU_PACKAGE}\` adds it.`);
    return why;
  }
  if (adapterError) why.push(`navigator.gpu.requestAdapter() threw: ${adapterError}.`);
  for (const w of dawnWarnings(dawnStderr).slice(0, 4)) why.push(`Dawn said: "${w}"`);
  if (facts) {
    if (!facts.loader) why.push('The Vulkan loader libvulkan.so.1 is not installed' +
      (facts.ldconfigRan ? ' (ldconfig -p does not list it)' : ' (ldconfig could not be run to look)') +
      ': install it (Debian: apt-get install libvulkan1), or unpack its .deb and run ldconfig.');
    const present = facts.icds.filter((i) => i.exists);
    for (const i of facts.icds.filter((x) => x.fromEnv && !x.exists)) why.push(`VK_DRIVER_FILES names ${i.path}, which does not exist.`);
    if (!present.length) why.push('No Vulkan driver manifest (ICD JSON) was found' +
      (facts.icds.some((i) => i.fromEnv) ? '' : ` in ${ICD_DIRS.join(', ')}`) +
      ': point VK_DRIVER_FILES at the GPU driver\'s, e.g. /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json.');
    if (!facts.devices.length) why.push('No GPU device node (/dev/nvidia0, /dev/dri/renderD*) exists: this machine or container has no GPU.');
    if (facts.nvidiaSmi.length) why.push(`nvidia-smi sees: ${facts.nvidiaSmi.join('; ')}.`);
    if (facts.loader && present.length && facts.devices.length)
      why.push(`The loader, a driver manifest (${present.map((i) => i.path).join(', ')}) and a device are all present, ` +
        'yet Dawn found no adapter: the driver may be too old for Dawn (it needs Vulkan 1.1 and its features); ' +
        'VK_LOADER_DEBUG=all shows what the loader tried.');
  }
  if (!why.length) why.push('Dawn gave no adapter and said nothing about why.');
  return why;
}
