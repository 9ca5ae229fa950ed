@@ sign

// sign(x): 1, -1, or 0 at 0 (the .lag built-in; its derivative is taken as 0).
{head}{scalar} sign({scalar} x) {{
    return x > {zero} ? {scalar}({one}) : x < {zero} ? {scalar}(-{one}) : {scalar}({zero});
}}
