{comment}{result} {name}({parameters});
