"""The built-in function library of the expression language (Terraform's functions, same results).

The evaluator needs only this surface::

    call_function(name, args, ctx)  -> value      # raises FunctionError
    function_names()                -> frozenset   # includes the special forms try/can
    arity(name)                     -> (min, max or None)

Functions are grouped by family in sibling modules (``numeric``, ``strings``, ``lists``, ``maps``, …);
``registry`` collects them and applies the rules every function shares (unknowns, sensitive
marks, error wording).
"""

from engine.lang.functions._core import FILE_ROOT_VARIABLE, FunctionContext, FunctionError, file_root_from
from engine.lang.functions._json import encode as json_text
from engine.lang.functions._json import encode_indented as json_text_indented
from engine.lang.functions.registry import arity, call_function, function_names

# ``json_text`` and ``json_text_indented`` write JSON as Terraform does (``jsonencode``; ``output -json``).
__all__ = ["FILE_ROOT_VARIABLE", "FunctionContext", "FunctionError", "arity", "call_function", "file_root_from",
           "function_names", "json_text", "json_text_indented"]
