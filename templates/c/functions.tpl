@@ sign

/* sign(x): 1, -1, or 0 at 0 (the .lag built-in; its derivative is taken as 0). */
static inline {scalar} sign({scalar} x) {{
    return x > {zero} ? {one} : x < {zero} ? -{one} : {zero};
}}
