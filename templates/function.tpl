
{comment}{linkage}{result} {name}({parameters}) {{
{body}}}
