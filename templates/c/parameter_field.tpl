    p->{name} = {value};
