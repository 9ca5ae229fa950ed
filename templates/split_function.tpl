@@ scratch
    {scalar} w[{size}];
@@ call
    detail::{part}({arguments});
