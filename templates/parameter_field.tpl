    {type} {name} = {value};
