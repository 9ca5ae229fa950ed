@@ about
/* The C interface of model {ns}, written in C99 (lagc -o NAME.c; nothing but <math.h>): every
   function as {ns}_NAME, with a plain C parameters struct, as --c-api's header declares them. */
@@ wrapper

{result} {ns}_{name}({parameters}) {{
{null_check}    {return}{name}({arguments});
}}
