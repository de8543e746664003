# cmake -DIN=file -DOUT=file.cpp -DNAME=symbol -DNAMESPACE=ns -P embed.cmake
# Writes OUT defining `extern const char NAME[]`: the bytes of IN and a NUL
# (the byte map's page template, cli/view.html, goes into the program so).
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" len)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," body "${hex}")
string(REGEX REPLACE "((('\\\\x[0-9a-f][0-9a-f]',)){20})" "\\1\n" body "${body}")
file(WRITE "${OUT}.tmp" "// Generated from ${IN} by cmake/embed.cmake: do not edit.\nnamespace ${NAMESPACE} {\nextern const char ${NAME}[];\nconst char ${NAME}[] = {\n${body}'\\0'};\n}\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
