"""MLIR contexts and modules over the C API: parse, print, verify and run
pass pipelines, with every diagnostic collected and raised as MLIRError.

    ctx = Context()
    module = Module.parse(text, ctx)
    module.run_passes("builtin.module(quant-block-raise,canonicalize)")
    print(module)
"""

import ctypes

from . import _capi

SEVERITIES = {0: "error", 1: "warning", 2: "note", 3: "remark"}


class Diagnostic:
    """One diagnostic: its severity, location (as MLIR prints it, e.g.
    `loc("-":3:8)`), message and notes."""

    def __init__(self, severity, location, message, notes=()):
        self.severity = severity
        self.location = location
        self.message = message
        self.notes = list(notes)

    def __str__(self):
        text = f"{self.location}: {self.severity}: {self.message}"
        for note in self.notes:
            text += f"\n{note}"
        return text

    def __repr__(self):
        return f"Diagnostic({str(self)!r})"


class MLIRError(Exception):
    """An MLIR operation failed; `diagnostics` holds what MLIR reported (with
    locations), `reason` says which step failed."""

    def __init__(self, reason, diagnostics=()):
        self.reason = reason
        self.diagnostics = list(diagnostics)
        text = reason
        if self.diagnostics:
            text += ":\n" + "\n".join(str(d) for d in self.diagnostics)
        super().__init__(text)


def _read_diagnostic(lib, diagnostic):
    severity = SEVERITIES.get(lib.mlirDiagnosticGetSeverity(diagnostic),
                              "error")
    location = _capi.printed(lib.mlirLocationPrint,
                             lib.mlirDiagnosticGetLocation(diagnostic))
    message = _capi.printed(lib.mlirDiagnosticPrint, diagnostic)
    notes = [_read_diagnostic(lib, lib.mlirDiagnosticGetNote(diagnostic, i))
             for i in range(lib.mlirDiagnosticGetNumNotes(diagnostic))]
    return Diagnostic(severity, location, message, notes)


class Context:
    """An MLIR context with every upstream dialect, quant_block and the
    quant-block and upstream passes registered. Diagnostics are collected
    here; the calls that fail raise them as MLIRError."""

    def __init__(self):
        self._lib = lib = _capi.library()
        lib.mlirRegisterQuantBlockPasses()
        lib.mlirQuantBlockRegisterUpstreamPasses()
        registry = lib.mlirDialectRegistryCreate()
        lib.mlirQuantBlockRegisterAllDialects(registry)
        self._context = lib.mlirContextCreateWithRegistry(registry, False)
        lib.mlirDialectRegistryDestroy(registry)
        self.diagnostics = []
        self._handler = _capi.DiagnosticHandler(self._on_diagnostic)
        lib.mlirContextAttachDiagnosticHandler(self._context, self._handler,
                                               None, None)

    def _on_diagnostic(self, diagnostic, _):
        self.diagnostics.append(_read_diagnostic(self._lib, diagnostic))
        return 1  # handled

    def take_diagnostics(self):
        """The diagnostics collected since the last call, and forgets them."""
        taken, self.diagnostics = self.diagnostics, []
        return taken

    def __del__(self):
        if getattr(self, "_context", None) is not None:
            self._lib.mlirContextDestroy(self._context)
            self._context = None


_default_context = None


def default_context():
    """The context used when none is given."""
    global _default_context
    if _default_context is None:
        _default_context = Context()
    return _default_context


class Module:
    """A builtin.module owned by Python."""

    def __init__(self, handle, context):
        self._module = handle
        self.context = context

    @staticmethod
    def parse(text, context=None):
        """Parses `text`; raises MLIRError with the parser's diagnostics."""
        context = context or default_context()
        lib = context._lib
        context.take_diagnostics()
        handle = lib.mlirModuleCreateParse(context._context,
                                           _capi.StringRef.of(text))
        if not handle.ptr:
            raise MLIRError("cannot parse the module",
                            context.take_diagnostics())
        return Module(handle, context)

    @property
    def _operation(self):
        return self.context._lib.mlirModuleGetOperation(self._module)

    def print(self, debug_info=False):
        """The module as MLIR prints it; with `debug_info`, with the
        location of each op (`loc(...)`, as aliases at the end), which is
        where an importer records the node an op comes from."""
        lib = self.context._lib
        if not debug_info:
            return _capi.printed(lib.mlirOperationPrint, self._operation)
        flags = lib.mlirOpPrintingFlagsCreate()
        try:
            lib.mlirOpPrintingFlagsEnableDebugInfo(flags, True, False)
            return _capi.printed(
                lambda op, callback, data: lib.mlirOperationPrintWithFlags(
                    op, flags, callback, data),
                self._operation)
        finally:
            lib.mlirOpPrintingFlagsDestroy(flags)

    __str__ = print

    def verify(self):
        """Returns True, or raises MLIRError with the verifier's messages."""
        self.context.take_diagnostics()
        if not self.context._lib.mlirOperationVerify(self._operation):
            raise MLIRError("the module does not verify",
                            self.context.take_diagnostics())
        return True

    def run_passes(self, pipeline):
        """Runs the textual pass pipeline `pipeline` on the module in place
        ("quant-block-raise", or with its anchor,
        "builtin.module(quant-block-raise,canonicalize)"). Returns the
        module; raises MLIRError with the diagnostics when the pipeline does
        not parse or a pass fails."""
        lib = self.context._lib
        if not pipeline.lstrip().startswith("builtin.module("):
            pipeline = f"builtin.module({pipeline})"
        pm = lib.mlirPassManagerCreate(self.context._context)
        try:
            errors = _capi.TextCollector()
            parsed = lib.mlirParsePassPipeline(
                lib.mlirPassManagerGetAsOpPassManager(pm),
                _capi.StringRef.of(pipeline), errors.callback, None)
            if not parsed.value:
                raise MLIRError(f"cannot parse the pass pipeline "
                                f"'{pipeline}': {errors.text.strip()}")
            self.context.take_diagnostics()
            if not lib.mlirPassManagerRunOnOp(pm, self._operation).value:
                raise MLIRError(f"the pass pipeline '{pipeline}' failed",
                                self.context.take_diagnostics())
        finally:
            lib.mlirPassManagerDestroy(pm)
        return self

    def __del__(self):
        if getattr(self, "_module", None) is not None:
            self.context._lib.mlirModuleDestroy(self._module)
            self._module = None
