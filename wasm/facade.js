// The one JS facade over the raw Embind bindings (docs/DESIGN.md "Binding convention"), linked with --post-js
// so it runs inside the module factory (`Module` is the module). Raw names start with "_raw_" and never throw:
// they return a value or an Error; a raw handle whose construction failed has a non-empty error(). Here those
// become thrown Errors, raw handles become the public classes, and optional arguments get their defaults
// (numeric defaults of methods and plans come from Module.catalogue(), the core's catalogue).
// Raw bindings are looked up at call time, so the order in which Embind registers them does not matter.
// ES5 on purpose: Emscripten 3.1.6's JS optimizer processes this file.
// Emscripten 3.1.6 built with -pthread resolves the module only once every Worker of its pthread pool has loaded the
// instance, and never when the pool is empty (Module.attnlabPoolSize 0 or unset: a page that is not cross-origin
// isolated, the Debate's pool workers, Node): only a loading Worker ends that wait. With an empty pool the wait is
// ended here, just after the instance is in place (its receiveInstance sets Module.asm). PThread,
// ENVIRONMENT_IS_PTHREAD and removeRunDependency are the glue's own (this file runs inside the module factory).
if (typeof PThread === 'object' && !ENVIRONMENT_IS_PTHREAD && PThread.unusedWorkers.length === 0) {
  (function () {
    var asmExports;
    Object.defineProperty(Module, 'asm', {
      configurable: true,
      get: function () { return asmExports; },
      set: function (v) {
        asmExports = v;
        Promise.resolve().then(function () { removeRunDependency('wasm-instantiate'); });
      },
    });
  })();
}

(function (M) {
  var catalogueCache = null;
  function raw(name) { return M['_raw_' + name]; }
  function check(r) {
    if (r instanceof Error) throw r;
    return r;
  }
  function checkHandle(h) {
    var e = h.error();
    if (e) {
      h.delete();
      throw new Error(e);
    }
    return h;
  }
  function catalogue() {
    if (!catalogueCache) catalogueCache = check(raw('catalogue')());
    return catalogueCache;
  }
  function specDefault(list, name) {
    for (var i = 0; i < list.length; i++) if (list[i].name === name) return list[i]['default'];
    throw new Error('the catalogue has no default for ' + name);
  }
  // Arguments with defaults: spec[i] undefined = required; a function = computed default.
  function withDefaults(args, spec) {
    var out = [];
    for (var i = 0; i < spec.length; i++) {
      var v = args[i];
      if (v === undefined && spec[i] !== undefined) v = typeof spec[i] === 'function' ? spec[i]() : spec[i];
      out.push(v);
    }
    return out;
  }
  // A public class over raw class `rawName`: `methods` maps a method name to its argument defaults (an array)
  // or to {args, wrap: 'PublicClass'} for methods returning a raw handle.
  function defineClass(name, rawName, methods, ctorSpec) {
    function C() {
      if (!(this instanceof C)) throw new Error(name + ' must be called with new');
      if (arguments[0] && arguments[0].__raw) {
        this._raw = arguments[0].__raw;
        return;
      }
      var R = raw(rawName);
      var a = ctorSpec ? withDefaults(arguments, ctorSpec) : Array.prototype.slice.call(arguments);
      this._raw = checkHandle(new (Function.prototype.bind.apply(R, [null].concat(a)))());
    }
    Object.keys(methods).forEach(function (m) {
      var spec = methods[m], args = Array.isArray(spec) ? spec : spec.args, wrap = Array.isArray(spec) ? null : spec.wrap;
      C.prototype[m] = function () {
        if (!this._raw) throw new Error(name + '.' + m + ': the object was deleted');
        var r = check(this._raw[m].apply(this._raw, withDefaults(arguments, args)));
        return wrap ? M[wrap].wrap(r) : r;
      };
    });
    C.prototype.delete = function () {
      if (this._raw) this._raw.delete();
      this._raw = null;
    };
    C.wrap = function (h) { return new C({ __raw: checkHandle(h) }); };
    M[name] = C;
    return C;
  }
  function fn(name, spec, wrap) {
    M[name] = function () {
      var r = check(raw(name).apply(null, spec ? withDefaults(arguments, spec) : arguments));
      return wrap ? M[wrap].wrap(r) : r;
    };
  }
  var R; // required argument
  var explainDefault = function (key) {
    return function () { return specDefault(catalogue().text.explain, key); };
  };

  // ---- catalogue ----
  M.catalogue = function () { return JSON.parse(JSON.stringify(catalogue())); };
  fn('imagePasses', [R, {}, function () { return catalogue().image.default_channels; }]);

  // ---- text (wasm/text_bindings.cpp) ----
  var experimentArgs = [R, R, {}, 1];
  defineClass('TextLab', 'TextLab', {
    info: [], predict: [R], tokenizations: [], hasDataset: [R],
    explain: [R, explainDefault('max_tokens'), explainDefault('ig_steps'), true],
    experiment: [R, R, {}, 1, explainDefault('max_tokens')],
    attentionMaps: [R, explainDefault('max_tokens')],
    loadDataset: [R, R, ''],
    experimentRange: [R, R, R, R, {}, 1],
    runSummary: experimentArgs,
    summarizeRows: experimentArgs,
    forwardBackward: [R, R], forwardBackwardBatch: [R, R, R],
    globalViewStart: [''], globalViewStep: [1],
  });
  var trainingMethods = { step: [R], configJson: [''], weights: [] };
  defineClass('TextTraining', 'TextTraining', trainingMethods, [R, R, {}]);
  var AdversaryTraining = defineClass('AdversaryTraining', 'AdversaryTraining', trainingMethods);
  M.AdversaryTraining = function (base, trainTsv, devTsv, options) {
    var lab = base;
    if (!lab || !lab._raw) throw new Error('AdversaryTraining: the base must be a loaded TextLab');
    return new AdversaryTraining({ __raw: checkHandle(new (raw('AdversaryTraining'))(lab._raw, String(trainTsv), String(devTsv), options === undefined ? {} : options)) });
  };
  M.AdversaryTraining.wrap = AdversaryTraining.wrap;

  // ---- documents (wasm/han_bindings.cpp) ----
  defineClass('HanLab', 'HanLab', {
    info: [], predict: [R], explain: [R, explainDefault('ig_steps')], globalViewStart: [[], 'word'], globalViewStep: [1],
    explainStart: [R, explainDefault('ig_steps')], explainStep: [R], explainResult: [R],
    hasDataset: [R], loadDataset: [R, R], experimentRange: [R, R, R, R, {}, 1], summarizeRows: experimentArgs,
  });

  // ---- image (wasm/image_bindings.cpp) ----
  defineClass('ImageLab', 'ImageLab', {
    logits: [R, R, R, R], softmax: [R, R], map: [R, R, R, R, R, 1], classes: [], channels: [],
    randomized: { args: [1], wrap: 'ImageLab' },
    setPhoto: [R, R, R, R], setMask: [null, 1, 15],
    renderMap: [R, R, 1, 'viridis', 1], putMap: [R, R, 'viridis', 1], recolor: [R, 'viridis', 1],
    plan: { args: [R, R, {}], wrap: 'ImagePlan' },
  });
  defineClass('ImagePlan', 'ImagePlan', {
    count: [], done: [], accepted: [], inputs: [R, R], accept: [R, R], acceptN: [R, R, R], result: [], resultJson: [],
  });
  ['preprocessImage', 'preprocessMask', 'upsampleMap', 'normalizeMap', 'colorizeMap', 'overlayMap',
   'pointingGame', 'energyInMask', 'maskIoU', 'spearmanMaps', 'eraseRegion'].forEach(function (name) { fn(name); });
  ['planScoreCam', 'planRise', 'planOcclusion', 'planDeletion', 'planInsertion', 'planExplanationMask'].forEach(function (name) {
    fn(name, null, 'ImagePlan');
  });
  var roadDefault = function (key) {
    return function () {
      var m = catalogue().image.methods.filter(function (x) { return x.name === 'road'; })[0];
      return specDefault(m.params, key);
    };
  };
  fn('planRoad', [R, R, R, roadDefault('order'), roadDefault('noise'), roadDefault('seed')], 'ImagePlan');

  // ---- the core's threads (wasm/threads_bindings.cpp): setThreads(n) → the count in effect; threads();
  // interruptWord() → the byte address of the core's interrupt word (core/parallel/interrupt.h) ----
  fn('setThreads', [0]);
  fn('threads', []);
  fn('interruptWord', []);

  // ---- your model (wasm/onnx_bindings.cpp) ----
  fn('onnxInfo', [R, 0]);
  fn('modelInput', [R, R, R, R, 3]);
  fn('exposeAttention', [R]);
  fn('vitMapFromAttention', [R, R]);
  defineClass('OnnxLab', 'OnnxLab', {
    info: [], setPhoto: [R, 'imagenet'], explain: [R, 'auto', -1, {}], sanity: [R, 'auto', -1, 1, {}],
    layerActivation: [R], logitsOf: [R, R],
  }, [R, 0]);
  defineClass('OnnxRunner', 'OnnxRunner', { run: [R, R] }, [R]);

  // ---- your text transformer (wasm/onnx_text_bindings.cpp) ----
  defineClass('OnnxTextLab', 'OnnxTextLab', {
    info: [], tokenize: [R, true], explain: [R, 'next', {}], explainIds: [R, 'next', {}], explainStep: [R, 'next', {}],
    leaveOneOut: [R, R, R, R, R], integratedGradients: [R, R, 50, {}], contextMixingLayer: [R, R, R], contextMixingRollout: [R, R],
    top: [R, 5], greedyStep: [R], attentionMaps: [R], decode: [R], pieces: [R],
    experiment: [R, R, {}],
  }, [R, R, '', {}]);

  // ---- localization lab (wasm/cnn_bindings.cpp) ----
  defineClass('CnnTrainer', 'CnnTrainer', {
    step: [R], probes: [], metrics: [0], erase: [R, 0.5, 200, 4], weights: [], configJson: [], done: [],
  }, [{}]);
  var loadCnnModel = function (configJson, weights) {
    if (typeof configJson !== 'string') throw new Error('loadCnnModel: configJson must be the config.json text');
    return M.CnnTrainer.wrap(raw('loadCnnModel')(configJson, weights));
  };
  M.loadCnnModel = loadCnnModel;
})(Module);
